// How a process says which Kafka client it runs (A11): `<prefix>_kafka_client_info{version,vendored}`
// at 1, the same in ingest, the projector and the dashboard. vendored="1" is the copy in
// packages/kafkajs with the changes of its CHANGES.md; vendored="0" would be an npm kafkajs, which
// test/architecture/kafka-client.test.ts and the compiled build's test refuse.
import { Gauge, type Registry } from 'prom-client'
import { kafkaClientInfo } from './client.js'

export function kafkaClientInfoGauge(registry: Registry, prefix: string): void {
  new Gauge({
    name: `${prefix}_kafka_client_info`,
    help: 'The Kafka client this process runs: kafkajs upstream version, and vendored="1" for packages/kafkajs (docs/design.md A11).',
    labelNames: ['version', 'vendored'],
    registers: [registry],
  }).set({ version: kafkaClientInfo.version, vendored: kafkaClientInfo.vendored ? '1' : '0' }, 1)
}
