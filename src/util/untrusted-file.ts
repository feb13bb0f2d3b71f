// Opening a file that someone else writes (a run's journal, tasks, registry: anything under a
// project's `.autoloop/`): for reading only, never blocking (a FIFO opened without O_NONBLOCK
// waits for a writer, on the daemon's one thread), never through a link in the last
// component, and only when it is a regular file.
import { closeSync, constants, fstatSync, openSync, type Stats } from "node:fs";
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

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * Opens `path` for reading as described above; undefined when it does not exist. Throws an
 * `UntrustedFileError` for a link or a non-regular file, and other errors as they come.
 */
export function openRegularFile(path: string): { fd: number; stat: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    if (code === "ELOOP") throw new UntrustedFileError(path, "link");
    throw err;
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw new UntrustedFileError(path, "not_regular");
  }
  return { fd, stat };
}
