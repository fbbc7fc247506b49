import { createContext, useContext, type ReactNode } from 'react'
import type { Bridge } from '../bridge'
import { createAppInfoStore, type AppInfoStore } from './appInfoStore'
import { createChatStore, type ChatStore } from './chatStore'
import { createContextStore, type ContextStore } from './contextStore'
import { createConversationsStore, type ConversationsStore } from './conversationsStore'
import { createDisplayStore, type DisplayStore } from './displayStore'
import { createMcpStore, type McpStore } from './mcpStore'
import { createMcpComposerStore, type McpComposerStore } from './mcpComposerStore'
import { createModelStore, type ModelStore } from './modelStore'
import { createNotifyStore, type NotifyStore } from './notifyStore'
import { createPackagesStore, type PackagesStore } from './packagesStore'
import { createProjectStore, type ProjectStore } from './projectStore'
import { createRunStore, type RunStore } from './runStore'
import { createSettingsStore, type SettingsStore } from './settingsStore'
import { createSkillsStore, type SkillsStore } from './skillsStore'
import { createSetupStore, type SetupStore } from './setupStore'

export { useStore } from './store'
export type { AppInfoStore } from './appInfoStore'
export type { ChatState, ChatStore, LiveCall, LiveOutput, LiveTool } from './chatStore'
export type { CompactionOutcome, ContextState, ContextStore } from './contextStore'
export type { ConversationsState, ConversationsStore } from './conversationsStore'
export type { DisplayState, DisplayStore, TextSize } from './displayStore'
export { textSizes } from './displayStore'
export type { McpPageState, McpStore } from './mcpStore'
export type { McpComposerState, McpComposerStore } from './mcpComposerStore'
export type { ModelState, ModelStore } from './modelStore'
export type { NotifyState, NotifyStore } from './notifyStore'
export type { PackagesState, PackagesStore } from './packagesStore'
export type { ProjectBusy, ProjectState, ProjectStore } from './projectStore'
export type { RunState, RunStore } from './runStore'
export type { SettingsState, SettingsStore, SettingsTab, Theme } from './settingsStore'
export type { SkillsState, SkillsStore } from './skillsStore'
export type { SetupState, SetupStore } from './setupStore'

/** Every store of the app, built once from a Bridge. Components reach them
 * through useStores(); stores reach Go only through the bridge. */
export interface Stores {
  appInfo: AppInfoStore
  projects: ProjectStore
  conversations: ConversationsStore
  chat: ChatStore
  runs: RunStore
  packages: PackagesStore
  settings: SettingsStore
  mcp: McpStore
  mcpComposer: McpComposerStore
  skills: SkillsStore
  context: ContextStore
  setup: SetupStore
  display: DisplayStore
  models: ModelStore
  notify: NotifyStore
}

export function createStores(bridge: Bridge): Stores {
  const projects = createProjectStore(bridge)
  const chat = createChatStore(bridge)
  const settings = createSettingsStore(bridge)
  const display = createDisplayStore()
  return {
    appInfo: createAppInfoStore(bridge),
    projects,
    conversations: createConversationsStore(bridge),
    chat,
    runs: createRunStore(bridge, chat),
    packages: createPackagesStore(bridge, (info) => projects.setState({ current: info })),
    settings,
    mcp: createMcpStore(bridge, () => void settings.actions.load()),
    mcpComposer: createMcpComposerStore(bridge),
    skills: createSkillsStore(bridge),
    context: createContextStore(bridge, chat),
    setup: createSetupStore(bridge, settings),
    display,
    models: createModelStore(bridge),
    notify: createNotifyStore(bridge, display),
  }
}

const StoresContext = createContext<Stores | null>(null)

export function StoresProvider({ stores, children }: { stores: Stores; children: ReactNode }) {
  return <StoresContext.Provider value={stores}>{children}</StoresContext.Provider>
}

export function useStores(): Stores {
  const stores = useContext(StoresContext)
  if (!stores) throw new Error('useStores() needs a <StoresProvider> above it')
  return stores
}
