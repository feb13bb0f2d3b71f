// Opening a file that someone else writes (a run's journal, tasks, registry: anything under a
// project's `.autoloop/`): for reading only, never blocking (a FIFO opened without O_NONBLOCK
// waits for a writer, on the daemon's one thread), never through a link in the last
// component, and only when it is a regular file.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  type Stats,
} from "node:fs";
import { dirname, sep } from "node:path";
import { UserError } from "./errors.js";

/** A state file refused: what it is and what to do (exit 1: the run or command failed). */
export class UntrustedFileError extends UserError {
  constructor(
    readonly path: string,
    readonly why: "link" | "not_regular",
  ) {
    super(
      why === "link"
        ? `${path} is a symbolic link: state files are opened only as regular files, never through a link (replace the link with a file)`
        : `${path} is not a regular file (a FIFO, socket or folder): it is not opened (remove it; the harness writes a regular file there)`,
      1,
    );
    this.name = "UntrustedFileError";
  }
}

const READ = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
const APPEND =
  constants.O_RDWR |
  constants.O_APPEND |
  constants.O_CREAT |
  constants.O_NOFOLLOW |
  constants.O_NONBLOCK;

/**
 * Opens `path` never through a link in its last component and never blocking on a FIFO, and
 * keeps it only when `fstat` says a regular file (or, when `devices`, a character device such
 * as /dev/null: only root can make one in a project). Throws an `UntrustedFileError` for the
 * rest, and open's own errors as they come.
 */
function openUntrusted(
  path: string,
  flags: number,
  options: { mode?: number; devices?: boolean } = {},
): { fd: number; stat: Stats } {
  let fd: number;
  try {
    fd = openSync(path, flags, options.mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new UntrustedFileError(path, "link");
    if (code === "ENXIO") throw new UntrustedFileError(path, "not_regular"); // a FIFO, for writing
    throw err;
  }
  const stat = fstatSync(fd);
  if (!stat.isFile() && !(options.devices === true && stat.isCharacterDevice())) {
    closeSync(fd);
    throw new UntrustedFileError(path, "not_regular");
  }
  return { fd, stat };
}

/**
 * Opens `path` for reading as described above; undefined when it does not exist. Throws an
 * `UntrustedFileError` for a link or a non-regular file, and other errors as they come.
 */
export function openRegularFile(
  path: string,
  { followLinks = false }: { followLinks?: boolean } = {},
): { fd: number; stat: Stats } | undefined {
  try {
    return openUntrusted(path, followLinks ? READ & ~constants.O_NOFOLLOW : READ);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

/**
 * Opens (creating it with `mode`) a file to append to: never through a link (a run could
 * point a journal at any file of the user's), never blocking on a FIFO, only a regular file
 * or a device such as /dev/null.
 */
export function openForAppend(path: string, mode: number): number {
  return openUntrusted(path, APPEND, { mode, devices: true }).fd;
}

/**
 * A small file's text, read as described above (never through a link unless `followLinks`,
 * for files the operator names, such as a Kubernetes secret's; never waiting on a FIFO);
 * undefined when it is missing, not a regular file, or over `maxBytes`.
 */
export function readSmallRegularFile(
  path: string,
  maxBytes = 1 << 20,
  options: { followLinks?: boolean } = {},
): string | undefined {
  let opened: { fd: number; stat: Stats } | undefined;
  try {
    opened = openRegularFile(path, options);
  } catch {
    return undefined;
  }
  if (opened === undefined) return undefined;
  try {
    if (opened.stat.size > maxBytes) return undefined;
    return readFileSync(opened.fd, "utf8");
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * The first part of `path` below `home` that is a symbolic link, if any: a folder a run could
 * write may hold a link it planted, and writing through it would land wherever it points.
 */
export function linkUnder(home: string, path: string): string | undefined {
  for (let at = path; at.startsWith(`${home}${sep}`); at = dirname(at)) {
    try {
      if (lstatSync(at).isSymbolicLink()) return at;
    } catch {
      // Not there yet: it is made as a folder or file, never followed.
    }
  }
  return undefined;
}
