import * as App from '../../wailsjs/go/main/App'
import type { main, project } from '../../wailsjs/go/models'
import { call } from './errors'

export type ProjectInfo = main.ProjectInfo
export type RecentProject = project.RecentProject

/** Projects: open / create / the recent list, and the native folder picker. */
export interface ProjectsApi {
  recent(): Promise<RecentProject[]>
  forgetRecent(root: string): Promise<void>
  open(root: string): Promise<ProjectInfo>
  create(parentDir: string, name: string): Promise<ProjectInfo>
  current(): Promise<ProjectInfo | null>
  close(): Promise<void>
  /** The native folder picker; null when the user cancelled. */
  chooseFolder(): Promise<string | null>
}

export function createWailsProjects(): ProjectsApi {
  return {
    recent: () => call(async () => (await App.RecentProjects()) ?? []),
    forgetRecent: (root) => call(() => App.ForgetRecent(root)),
    open: (root) => call(() => App.OpenProject(root)),
    create: (parentDir, name) => call(() => App.CreateProject(parentDir, name)),
    current: () => call(async () => (await App.CurrentProject()) ?? null),
    close: () => call(() => App.CloseProject()),
    chooseFolder: () => call(async () => (await App.ChooseFolder()) || null),
  }
}
