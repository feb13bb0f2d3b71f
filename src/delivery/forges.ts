// Each forge's client behind the one Forge interface, by the name `deliver.pull_request.forge`
// gives it. Loaded on a forge's first delivery: the clients are large, and a daemon that
// delivers nothing (or to one forge) starts without the others.
import type { Forge, ForgeKind, ForgeOptions } from "../forge/forge.js";

type ForgeClient = (options: ForgeOptions) => Forge;

export const FORGE_CLIENTS: Record<ForgeKind, () => Promise<ForgeClient>> = {
  github: async () => (await import("../forge/github.js")).githubForge,
  gitlab: async () => (await import("../forge/gitlab.js")).gitlabForge,
  gitea: async () => (await import("../forge/gitea.js")).giteaForge,
};
