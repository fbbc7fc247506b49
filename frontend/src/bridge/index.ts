/** The only door to the Go side: typed wrappers over the generated Wails
 * bindings (../../wailsjs), one per domain. Stores receive a Bridge; tests
 * pass an in-memory one (src/test/fakeBridge.ts). */
import { createWailsChat, type ChatApi } from './chat'
import { createWailsContext, type ContextApi } from './context'
import { createWailsConversations, type ConversationsApi } from './conversations'
import { createWailsEvents, type EventsApi } from './events'
import { createWailsMcp, type McpApi } from './mcp'
import { createWailsPackages, type PackagesApi } from './packages'
import { createWailsProjects, type ProjectsApi } from './projects'
import { createWailsRuns, type RunsApi } from './runs'
import { createWailsSettings, type SettingsApi } from './settings'
import { createWailsSkills, type SkillsApi } from './skills'
import { createWailsSetup, type SetupApi } from './setup'
import { createWailsSystem, type SystemApi } from './system'

export interface Bridge {
  system: SystemApi
  projects: ProjectsApi
  conversations: ConversationsApi
  chat: ChatApi
  packages: PackagesApi
  runs: RunsApi
  settings: SettingsApi
  mcp: McpApi
  skills: SkillsApi
  context: ContextApi
  setup: SetupApi
  events: EventsApi
}

export function createWailsBridge(): Bridge {
  return {
    system: createWailsSystem(),
    projects: createWailsProjects(),
    conversations: createWailsConversations(),
    chat: createWailsChat(),
    packages: createWailsPackages(),
    runs: createWailsRuns(),
    settings: createWailsSettings(),
    mcp: createWailsMcp(),
    skills: createWailsSkills(),
    context: createWailsContext(),
    setup: createWailsSetup(),
    events: createWailsEvents(),
  }
}

export { BridgeError, ErrorCodes, toBridgeError, type ErrorCode } from './errors'
export { Codes } from './codes.gen'
export { EventNames, subscribeAll } from './events'
export { safeExternalURL } from './system'
export type { CompactResult, CompactionView, ContextApi, InstructionsFile, PinnedView, StepView } from './context'
export type { AgentInfo, AgentList, ApprovalDecision, AttachmentInput, ApprovalMode, ApprovalModeName, ApprovalRequest, ChatApi, ContextPreview, EditRequest, EndpointModels, Mode, PreviewDecision, PreviewMessage, RegenerateRequest, SendRequest } from './chat'
export { ApprovalModes } from './chat'
export type {
  BranchView,
  Checkpoint,
  ConversationExport,
  ConversationMeta,
  ConversationPage,
  ConversationsApi,
  Entry,
  EntryKind,
  EntryView,
  ErrorBlock,
  ExportFormat,
  HandoverView,
  Problem,
  QuestionState,
  RestoreResult,
  RewindResult,
  RewindWhat,
  SearchHit,
  ToolCall,
  ToolResultView,
  WaitingView,
} from './conversations'
export type { CallUsage, ContextStatus, ContextUsage, ConversationChange, EntriesEvent, EventError, EventMap, EventName, EventsApi, McpStatusEvent, ReportedUsage, RunProgress, UsageCost, StreamChunk, StreamEnd, StreamEvent, StreamStart, TaskEvent, ToolEnd, ToolOutputEvent, ToolStart, Unsubscribe } from './events'
export type { McpApi, McpComposedPrompt, McpComposerOffer, McpElicitation, McpElicitationAction, McpPrompt, McpPromptArgument, McpResource, McpSignOutResult, McpImport, McpOptions, McpParsed, McpProblem, McpServer, McpServerSpec, McpState, McpTool, McpView } from './mcp'
export type { ActivePackageView, InstalledPackage, PackageImport, PackageProblem, PackagesApi, PackagesView, WorkflowInfo } from './packages'
export type { ProjectInfo, ProjectsApi, RecentProject } from './projects'
export type {
  ArtifactView,
  ExecLogLine,
  NodeProgress,
  NodeStatus,
  Run,
  RunLogView,
  RunPhase,
  RunStatus,
  RunsApi,
  StartRunRequest,
  Widget,
  WidgetAnswer,
  WidgetAnswerRecord,
  WidgetField,
  WidgetOption,
} from './runs'
export type { ConnectionResult, Settings, SettingsApi, SettingsOverride, SettingsView } from './settings'
export type { LocalServer, SetupApi } from './setup'
export type { SystemApi } from './system'
export type { ActiveSkill, SkillChange, SkillItem, SkillLocation, SkillProblem, SkillsApi, SkillsView, SkillView } from './skills'
