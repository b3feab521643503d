import type { ReconnectingStream } from './reconnecting-stream.ts';

/** Owns one reconnecting stream and passes its life-cycle calls through. */
export abstract class StreamHolder {
  protected abstract get stream(): ReconnectingStream;

  start(): void {
    this.stream.start();
  }

  stop(): Promise<void> {
    return this.stream.stop();
  }

  /** Stops reading frames while the bus cannot take more (back-pressure), and starts again. */
  pause(): void {
    this.stream.pause();
  }

  resume(): void {
    this.stream.resume();
  }
}
