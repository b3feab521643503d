#!/usr/bin/env node
// Entry point of the `tapehouse` command. Runs the TypeScript sources through tsx's loader,
// so `npm start` and `npx tapehouse` need no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
