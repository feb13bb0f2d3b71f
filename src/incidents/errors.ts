// Errors of the incident store, each carrying what a caller (CLI or monitor) needs to react.
import { UserError } from "../util/errors.js";

/** Creating an incident whose slug is taken; the existing file is left untouched. */
export class IncidentExistsError extends UserError {
  constructor(
    readonly slug: string,
    readonly file: string,
  ) {
    super(`incident "${slug}" already exists (${file}); pick another name or log to it`);
    this.name = "IncidentExistsError";
  }
}

export class IncidentNotFoundError extends UserError {
  constructor(readonly query: string) {
    super(`no incident matches "${query}"`);
    this.name = "IncidentNotFoundError";
  }
}

/** A prefix or substring that names several incidents. */
export class AmbiguousIncidentError extends UserError {
  constructor(
    readonly query: string,
    readonly candidates: string[],
  ) {
    super(`"${query}" matches several incidents: ${candidates.join(", ")}; type more of the name`);
    this.name = "AmbiguousIncidentError";
  }
}

/** An incident file this tool cannot read (bad frontmatter); the message names the file. */
export class MalformedIncidentError extends UserError {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = "MalformedIncidentError";
  }
}
