/**
 * stdout and stderr may close under a running process: `tapehouse run | tee log` and Ctrl-C (tee
 * dies first), `| head`, a terminal that goes away. Writing there then fails (EPIPE, EIO), and an
 * unhandled stream error would end the process before the job flushed what it holds. Output is
 * secondary to the job: once a stream is closed, what would go there is dropped.
 */
export function keepRunningWhenOutputCloses(
  streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    if (stream.listeners('error').includes(dropOutput)) continue;
    stream.on('error', dropOutput);
  }
}

/** The error listener of an output stream: a closed one is expected, anything else too rare to die of. */
export function dropOutput(_error: Error): void {
  // Nothing to do: the stream is destroyed; later writes to it fail the same way, silently.
}
