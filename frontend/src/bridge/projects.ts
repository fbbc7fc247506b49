import * as Projects from '../../wailsjs/go/desktop/Projects'
import type { project } from '../../wailsjs/go/models'
import { call } from './errors'

export type ProjectInfo = project.Info
export type RecentProject = project.RecentProject

/** Projects: open / create / the recent list, and the native folder picker. */
export interface ProjectsApi {
  recent(): Promise<RecentProject[]>
  forgetRecent(root: string): Promise<void>
  /** Fails with E_PROJECT_MOVED, the question in words, for a folder that looks
   * like a project moved from another path: openMoved answers it. */
  open(root: string): Promise<ProjectInfo>
  /** Opens a moved project: keep takes its conversations along, otherwise the
   * folder becomes a new project. */
  openMoved(root: string, keep: boolean): Promise<ProjectInfo>
  create(parentDir: string, name: string): Promise<ProjectInfo>
  current(): Promise<ProjectInfo | null>
  close(): Promise<void>
  /** The native folder picker; null when the user cancelled. */
  chooseFolder(): Promise<string | null>
}

export function createWailsProjects(): ProjectsApi {
  return {
    recent: () => call(async () => (await Projects.Recent()) ?? []),
    forgetRecent: (root) => call(() => Projects.ForgetRecent(root)),
    open: (root) => call(() => Projects.Open(root)),
    openMoved: (root, keep) => call(() => Projects.OpenMoved(root, keep)),
    create: (parentDir, name) => call(() => Projects.Create(parentDir, name)),
    current: () => call(async () => (await Projects.Current()) ?? null),
    close: () => call(() => Projects.Close()),
    chooseFolder: () => call(async () => (await Projects.ChooseFolder()) || null),
  }
}
