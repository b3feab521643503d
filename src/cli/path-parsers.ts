import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Parsers of the settings that name a path (src/cli/settings.ts). They look before anything is
 * opened or created, and create nothing themselves: a read command on a mistyped path must leave
 * no directory behind, and a path the kernel makes up (/proc, /sys) must fail at once instead of
 * looping (Node's recursive mkdir spins forever under /proc). Each returns the text as given
 * and throws the tail of a sentence, which the table prefixes with the flag and its variable.
 */

/** Kernel file systems: nothing of ours can live there. */
const KERNEL_ROOTS = ['/proc', '/sys'];
/** Open descriptors handed to the process (`--token-file /dev/fd/3`, systemd's credentials): read-only files. */
const DESCRIPTORS = /^\/(proc\/(self|\d+)|dev)\/fd\/\d+$/;

function underKernel(path: string): string | undefined {
  return KERNEL_ROOTS.find((root) => path === root || path.startsWith(`${root}/`));
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function can(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/** The path itself when it exists, or else the nearest folder above it that does (what a mkdir would start from). */
function nearestExisting(path: string): { path: string; stats: Stats } {
  let at = path;
  for (;;) {
    const stats = statOf(at);
    if (stats) return { path: at, stats };
    const up = dirname(at);
    if (up === at) throw new Error('has no existing folder above it');
    at = up;
  }
}

/** What is missing can be created from `found`: a folder this user writes in. */
function creatableUnder(found: { path: string; stats: Stats }): void {
  if (!found.stats.isDirectory()) throw new Error(`cannot be created: ${found.path} is a file, not a directory`);
  if (!can(found.path, constants.W_OK | constants.X_OK))
    throw new Error(`cannot be created: this user cannot write in ${found.path}`);
}

function refuseKernel(text: string, absolute: string): void {
  const root = underKernel(absolute);
  if (root) throw new Error(`is under ${root}, which the kernel makes up: no data can be kept there`);
  if (!text.trim()) throw new Error('is empty');
}

/** A folder tapehouse writes in: it is one and is writable, or it can be created (its nearest existing parent is). */
export function writableDirectory(text: string): string {
  const absolute = resolve(text.trim());
  refuseKernel(text, absolute);
  const found = nearestExisting(absolute);
  if (found.path === absolute) {
    if (!found.stats.isDirectory()) throw new Error('is not a directory');
    if (!can(absolute, constants.W_OK | constants.X_OK)) throw new Error('is a directory this user cannot write in');
    return text.trim();
  }
  creatableUnder(found);
  return text.trim();
}

/** A file tapehouse writes (and reads back): a writable file, or one that can be created with its folders. */
export function writableFile(text: string): string {
  const absolute = resolve(text.trim());
  refuseKernel(text, absolute);
  const stats = statOf(absolute);
  if (stats) {
    if (stats.isDirectory()) throw new Error('is a directory, not a file');
    if (!can(absolute, constants.W_OK)) throw new Error('is a file this user cannot write');
    return text.trim();
  }
  creatableUnder(nearestExisting(dirname(absolute)));
  return text.trim();
}

/** A file tapehouse only reads (a token, a certificate): it exists, is not a folder, and is readable. */
export function readableFile(text: string): string {
  const absolute = resolve(text.trim());
  if (!DESCRIPTORS.test(absolute)) refuseKernel(text, absolute);
  const stats = statOf(absolute);
  if (!stats) throw new Error('does not exist');
  if (stats.isDirectory()) throw new Error('is a directory, not a file');
  if (!can(absolute, constants.R_OK)) throw new Error('is a file this user cannot read');
  return text.trim();
}
