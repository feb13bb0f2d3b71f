// Each forge's client behind the one Forge interface, by the name `deliver.pull_request.forge`
// gives it.
import type { Forge, ForgeKind, ForgeOptions } from "../forge/forge.js";
import { giteaForge } from "../forge/gitea.js";
import { githubForge } from "../forge/github.js";
import { gitlabForge } from "../forge/gitlab.js";

export const FORGE_CLIENTS: Record<ForgeKind, (options: ForgeOptions) => Forge> = {
  github: githubForge,
  gitlab: gitlabForge,
  gitea: giteaForge,
};
