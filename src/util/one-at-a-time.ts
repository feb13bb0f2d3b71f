// A job that runs one at a time: asked for while it runs, it runs once more when the current
// run ends (any number of asks meanwhile make one more run), and every caller's promise
// resolves after a run that started after its ask.

export class OneAtATime {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly job: () => Promise<void>,
    /** Checked before each further run: true stops the repeats (shutdown). */
    private readonly stopped: () => boolean = () => false,
  ) {}

  run(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    const loop = async () => {
      try {
        do {
          this.again = false;
          await this.job();
        } while (this.again && !this.stopped());
      } finally {
        // Cleared in the same step that ends the loop: an ask after it starts a new run.
        this.running = undefined;
      }
    };
    this.running = loop();
    return this.running;
  }
}
