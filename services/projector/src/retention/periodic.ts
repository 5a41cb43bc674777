// A pass run now and every `intervalMs` (the retention jobs, H35 and H60): a failed pass is handed to
// `failed` and tried again at the next; the timer never keeps the process alive.
export class Periodic {
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly failed: (err: Error) => void,
  ) {}

  start(intervalMs: number): void {
    const run = () => {
      this.pass()
        .catch((err) => this.failed(err as Error))
        .finally(() => {
          if (this.timer !== undefined) this.timer = setTimeout(run, intervalMs).unref()
        })
    }
    this.timer = setTimeout(run, 0).unref()
  }

  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }
}
