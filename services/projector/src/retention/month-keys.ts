// A23: with sealing on, a per-account retention (H60) also forgets the data keys of the received months it
// expires, so those months' records can no longer be opened in Kafka, in backups or in replays. It uses the
// erasure's own machinery (KeysEraser.look, A17): tombstones (acks=all), then reads of the keys topic until
// no record of those keys is left and the broker has deleted the replaced files. Progress goes to the
// projector's metrics and log (there is no receipt: no one asked), per account: keys tombstoned, records
// still on the topic, and when the last copy was observed gone. Stateless across restarts: a look finds
// the tombstones still on the topic and watches them again.
import { Counter, Gauge, type Registry } from 'prom-client'
import type { Logger } from '../../../shared/src/log.js'
import { expiredMonthKeys } from '../../../shared/src/privacy/retention.js'
import type { KeysEraser } from '../privacy/keys-eraser.js'

export interface MonthKeysLook {
  account_id: string
  /** The first received month kept (YYYY-MM): every earlier month's keys are forgotten. */
  kept_from: string
  tombstoned: number
  /** Records of the expired months' keys (keys or tombstones) a reader of the topic still gets. */
  left: number
  /** When the last copy left the disks (Unix ms), reported once per time the account's keys went. */
  disk_gone_at?: number
}

export class MonthKeysShredder {
  /** Accounts whose expired keys (or their tombstones) were last seen on the topic. */
  private readonly pending = new Set<string>()
  private readonly gauges?: ReturnType<typeof monthKeysGauges>

  constructor(
    private readonly eraser: KeysEraser,
    private readonly log: Logger,
    registry?: Registry,
  ) {
    if (registry) this.gauges = monthKeysGauges(registry)
  }

  /** Whether a look is worth its read of the keys topic between two retention runs. */
  get watching(): boolean {
    return this.pending.size > 0
  }

  /** How often the watch looks (ERASURE_DISK_CHECK_MS: the same deadline as an erasure's last step). */
  get checkMs(): number {
    return this.eraser.checkMs
  }

  /** One look for every account with a retention: tombstones its expired months' keys and watches them go. */
  async look(cutoffs: readonly { account_id: string; cutoff: number }[]): Promise<MonthKeysLook[]> {
    if (cutoffs.length === 0) return []
    const looks = await this.eraser.look(
      cutoffs.map((c) => ({ id: `retention\u0000${c.account_id}`, match: expiredMonthKeys(c.account_id, c.cutoff) })),
    )
    const out = cutoffs.map((c, i) => this.note(c.account_id, new Date(c.cutoff).toISOString().slice(0, 7), looks[i]!))
    this.gauges?.left.set(out.reduce((n, l) => n + l.left, 0))
    return out
  }

  private note(account_id: string, kept_from: string, l: { tombstoned: number; left: number; goneAt?: number }) {
    const look: MonthKeysLook = { account_id, kept_from, tombstoned: l.tombstoned, left: l.left }
    if (l.tombstoned > 0) {
      this.gauges?.tombstoned.inc(l.tombstoned)
      this.log.info('account retention: expired month keys tombstoned', { account_id, kept_from, keys: l.tombstoned })
    }
    if (l.left > 0) this.pending.add(account_id)
    else if (l.goneAt !== undefined && this.pending.delete(account_id)) {
      look.disk_gone_at = l.goneAt
      this.gauges?.gone.set(l.goneAt / 1000)
      this.log.info('account retention: expired month keys gone from disk', {
        account_id,
        kept_from,
        disk_gone_at: new Date(l.goneAt).toISOString(),
      })
    }
    return look
  }
}

function monthKeysGauges(registry: Registry) {
  return {
    tombstoned: new Counter({
      name: 'projector_retention_keys_tombstoned_total',
      help: 'A23: data keys of expired months the retention tombstoned.',
      registers: [registry],
    }),
    left: new Gauge({
      name: 'projector_retention_keys_on_disk',
      help: "A23: records of expired months' keys (keys or tombstones) still on the keys topic at the last look; 0 once gone.",
      registers: [registry],
    }),
    gone: new Gauge({
      name: 'projector_retention_keys_gone_seconds',
      help: "A23: Unix time an account's expired month keys were last observed gone from disk.",
      registers: [registry],
    }),
  }
}
