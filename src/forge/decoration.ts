// Labels and reviewers on a pull request that is already there: a forge refusing one (a label
// the repository lacks, a reviewer who may not review) is a warning kept with the delivery, not
// a run left undelivered; a failure worth trying again still fails the attempt.
import { ForgeError } from "./forge.js";

export async function decorationStep(
  warnings: string[],
  step: () => Promise<unknown>,
): Promise<void> {
  try {
    await step();
  } catch (err) {
    if (err instanceof ForgeError && err.failure.kind === "permanent") warnings.push(err.message);
    else throw err;
  }
}
