// A review on GitLab: the merge request read through Gitbeaker, and the run's report kept as
// one note on it (GitLab's reviews are notes), edited in place by later runs.
import type { ForgeOptions } from "./forge.js";
import { gitlabCall as call, gitlabClient } from "./gitbeaker.js";
import type { ReviewForge } from "./review.js";

export function gitlabReviews(options: ForgeOptions): ReviewForge {
  const api = gitlabClient(options);
  const projectId = options.repository;
  const noteUrl = async (iid: number, id: number) => {
    const mr = await call(`reading merge request !${iid}`, () =>
      api.MergeRequests.show(projectId, iid),
    );
    return `${mr.web_url}#note_${id}`;
  };
  return {
    async pull(iid) {
      const mr = await call(`reading merge request !${iid}`, () =>
        api.MergeRequests.show(projectId, iid),
      );
      const fromFork = mr.source_project_id !== mr.target_project_id;
      return {
        number: mr.iid,
        url: mr.web_url,
        headSha: String(mr.sha),
        fromFork,
        headRepository: fromFork ? `project ${mr.source_project_id}` : projectId,
        title: mr.title,
        body: mr.description ?? "",
      };
    },
    async findReview(iid, marker) {
      const notes = await call(`listing the notes of merge request !${iid}`, () =>
        api.MergeRequestNotes.all(projectId, iid, { sort: "asc", orderBy: "created_at" }),
      );
      // Anyone can write the marker, and a Maintainer's token may edit anyone's note: only
      // the token's own notes are the schedule's to edit.
      const me = await call("reading the token's user", () => api.Users.showCurrentUser());
      const found = notes.findLast((n) => n.author?.id === me.id && n.body.includes(marker));
      return found === undefined ? undefined : { id: found.id, url: await noteUrl(iid, found.id) };
    },
    async postReview(iid, body) {
      const note = await call(`posting a note on merge request !${iid}`, () =>
        api.MergeRequestNotes.create(projectId, iid, body),
      );
      return { id: note.id, url: await noteUrl(iid, note.id) };
    },
    async updateReview(iid, id, body) {
      const note = await call(`updating note ${id} on merge request !${iid}`, () =>
        api.MergeRequestNotes.edit(projectId, iid, id, { body }),
      );
      return { id: note.id, url: await noteUrl(iid, note.id) };
    },
  };
}
