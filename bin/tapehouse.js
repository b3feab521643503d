#!/usr/bin/env node
// Entry point of the `tapehouse` command. Runs the TypeScript sources through tsx's loader,
// so `npm start` and `npx tapehouse` need no build step.
import { register } from 'tsx/esm/api';

register();
const { startedByNpm } = await import('../src/cli/settings.ts');

// Started by npm (`npx tapehouse …`, `npm start`), this process sits under npm and a shell. A
// supervisor's SIGTERM reaches npm, which exits without passing it on: this process would be
// left running, adopted by init. So when the parent goes away, stop as if SIGTERM had come here.
if (startedByNpm()) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 500).unref();
}

const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
