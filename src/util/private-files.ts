// The modes of the scheduler's and monitor's state: outbox, incidents, mail, output logs and
// the ledger hold prompts, agent output and alert text, so only their owner may read them.
// Set at creation, so they hold whatever the umask (which can only take bits away).

export const PRIVATE_FILE = 0o600;
export const PRIVATE_DIR = 0o700;
