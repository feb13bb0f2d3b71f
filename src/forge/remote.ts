// The repository a remote names (owner/name, GitLab: group/.../name), from its URL: https, ssh
// (`git@host:owner/name.git`, `ssh://...`) or a local path's last two folders (tests).
export function repositoryOfUrl(url: string): string | undefined {
  const scp = /^[^/@:]+@[^:/]+:(.+)$/.exec(url);
  const hosted = scp?.[1] ?? (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? urlPath(url) : undefined);
  const parts = (hosted ?? url)
    .replace(/\.git\/?$/, "")
    .split("/")
    .filter((p) => p !== "");
  if (parts.length < 2) return undefined;
  return hosted === undefined ? parts.slice(-2).join("/") : parts.join("/");
}

function urlPath(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return undefined;
  }
}
