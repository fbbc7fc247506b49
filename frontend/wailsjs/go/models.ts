export namespace app {
	
	export interface ApprovalMode {
	    mode: string;
	    source: string;
	}
	export interface EditRequest {
	    conversationId: string;
	    messageId: string;
	    text: string;
	    mode: string;
	    agentId: string;
	}
	export interface Export {
	    fileName: string;
	    content: string;
	}
	export interface RegenerateRequest {
	    conversationId: string;
	    messageId: string;
	    mode: string;
	    agentId: string;
	}
	export interface SendRequest {
	    conversationId: string;
	    text: string;
	    mode: string;
	    agentId: string;
	    retry?: boolean;
	    attachments?: attach.Input[];
	}
	export interface StartRunRequest {
	    conversationId: string;
	    workflowId: string;
	    packageId?: string;
	    agentId: string;
	    message: string;
	}

}

export namespace attach {
	
	export interface File {
	    Name: string;
	    Data: number[];
	}
	export interface Input {
	    name: string;
	    data: string;
	}

}

export namespace checkpoint {
	
	export interface Result {
	    rewindId?: string;
	    restored: string[];
	    kept: string[];
	    unrestorable: string[];
	}
	export interface RewindResult {
	    conversationId: string;
	    to: string;
	    files?: Result;
	    newConversationId?: string;
	    notes?: string[];
	}

}

export namespace compression {
	
	export interface Usage {
	    usedTokens: number;
	    totalBudget: number;
	    usagePercent: number;
	    remaining: number;
	}

}

export namespace contextbuilder {
	
	export interface Budget {
	    tokenBudget: number;
	    reserveForResponse: number;
	    maxMessages: number;
	    maxChars: number;
	}
	export interface Counts {
	    entries: number;
	    events: number;
	    messages: number;
	    system: number;
	    history: number;
	    injections: number;
	    kept: number;
	    dropped: number;
	    compressed: number;
	    synthetic: number;
	    recalled: number;
	    pinned: number;
	    trimmed: number;
	    refilled?: number;
	}
	export interface RecallItem {
	    id: string;
	    role: string;
	    tool?: string;
	    text: string;
	    score: number;
	    why: string;
	    terms?: string[];
	    meaning?: boolean;
	}
	export interface Decision {
	    sourceId: string;
	    throughId?: string;
	    count: number;
	    role?: string;
	    reason: string;
	}
	export interface Row {
	    index: number;
	    role: string;
	    sourceId?: string;
	    tokens: number;
	    kind: string;
	    reason: string;
	    skills?: string[];
	}
	export interface Debug {
	    mode: string;
	    rows: Row[];
	    kept: Decision[];
	    dropped: Decision[];
	    compressed: Decision[];
	    counts: Counts;
	    usedTokens: number;
	    fullTokens: number;
	    fullMessages: number;
	    fullChars: number;
	    recallTokens: number;
	    recalled: RecallItem[];
	    tokenLimit: number;
	    budget: Budget;
	    refillFrom?: string;
	    usedChars: number;
	    overBudget: boolean;
	    safetyNet: boolean;
	    notes?: string[];
	}
	
	export interface Pin {
	    id: string;
	    role: string;
	    tool?: string;
	    kind: string;
	    text: string;
	    inHistory: boolean;
	    dropped?: boolean;
	    words?: string;
	}
	

}

export namespace conversation {
	
	export interface Approval {
	    state: string;
	    kind: string;
	    mode?: string;
	    why?: string;
	    summary: string;
	    paths?: string[];
	    diff?: string;
	    binary?: boolean;
	    newFile?: boolean;
	    command?: string;
	    cwd?: string;
	    grant?: string;
	    answer?: string;
	    note?: string;
	    answeredAt?: string;
	}
	export interface BranchView {
	    after: string;
	    index: number;
	    count: number;
	    reason?: string;
	    frozen?: boolean;
	}
	export interface Carried {
	    id: string;
	    role: string;
	    tool?: string;
	    kind: string;
	    text: string;
	}
	export interface Checkpoint {
	    name: string;
	    messageId: string;
	    createdAt: string;
	}
	export interface CompactionRef {
	    eventId: string;
	    from: string;
	    to: string;
	    count: number;
	    createdAt?: string;
	    reason?: string;
	}
	export interface CompactionData {
	    from: string;
	    to: string;
	    summary?: string;
	    strategy: string;
	    count: number;
	    compactedTotal: number;
	    keptFrom: string;
	    reason?: string;
	    focus?: string;
	    tokensBefore: number;
	    tokensAfter: number;
	    target: number;
	    mode?: string;
	    runId?: string;
	    workflowId?: string;
	    summaryError?: string;
	    appended?: boolean;
	    reduced?: boolean;
	    pinned: Carried[];
	    earlier?: CompactionRef[];
	    recallDocs?: number;
	    skills?: number[];
	}
	
	export interface PinnedView {
	    id: string;
	    who: string;
	    text: string;
	}
	export interface CompactionView {
	    count: number;
	    manual?: boolean;
	    focus?: string;
	    tokensBefore?: number;
	    tokensAfter?: number;
	    method: string;
	    summary?: string;
	    pinned: PinnedView[];
	}
	export interface ModelUsage {
	    calls: number;
	    promptTokens: number;
	    completionTokens: number;
	    cachedTokens: number;
	}
	export interface Usage {
	    promptTokens: number;
	    completionTokens: number;
	    totalTokens: number;
	    cachedTokens: number;
	}
	export interface UsageTotals {
	    calls: number;
	    promptTokens: number;
	    completionTokens: number;
	    totalTokens: number;
	    cachedTokens: number;
	    last?: Usage;
	    models?: Record<string, ModelUsage>;
	}
	export interface Waiting {
	    conversationId: string;
	    toolCallId: string;
	    resultId: string;
	    inputId?: string;
	    tool: string;
	    since: string;
	}
	export interface Instructions {
	    base?: string;
	    baseFile?: string;
	    tools: string[];
	    mcpServers: string[];
	    ignored?: string[];
	}
	export interface Origin {
	    conversationId: string;
	    toolCallId: string;
	    userWroteAt?: string;
	}
	export interface RunRef {
	    runId: string;
	    workflowId: string;
	    phase: string;
	    startedAt: string;
	    lastUpdatedAt: string;
	}
	export interface ConversationMeta {
	    id: string;
	    title: string;
	    entryType?: string;
	    activeType: string;
	    createdAt: string;
	    lastActiveAt: string;
	    messageCount: number;
	    parentId?: string;
	    forkedFromMessageId?: string;
	    forkedFromCheckpoint?: string;
	    selectedAgentId?: string;
	    selectedWorkflowId?: string;
	    runs?: RunRef[];
	    checkpoints?: Checkpoint[];
	    logSize?: number;
	    hasSummary?: boolean;
	    origin?: Origin;
	    instructions?: Instructions;
	    waiting?: Waiting;
	    usage?: UsageTotals;
	    approvalMode?: string;
	    approvalAllow?: string[];
	    endpoint?: string;
	    model?: string;
	}
	export interface Cost {
	    amount: number;
	    currency: string;
	    unpriced?: string[];
	}
	export interface ConversationUsage {
	    id: string;
	    title: string;
	    usage?: UsageTotals;
	    cost?: Cost;
	}
	
	export interface StepView {
	    title: string;
	    summary: string;
	    titleWords?: errs.Words;
	    summaryWords?: errs.Words;
	    calls: number;
	    failed?: number;
	    node?: string;
	}
	export interface SkillView {
	    name: string;
	    source?: string;
	    path?: string;
	    by?: string;
	    state?: string;
	    body?: string;
	}
	export interface HandoverView {
	    conversationId: string;
	    title?: string;
	    status: string;
	    answer?: string;
	    message?: string;
	}
	export interface QuestionView {
	    widgetId: string;
	    state: string;
	    widget: number[];
	    answer?: number[];
	}
	export interface LargeResult {
	    size: number;
	    head: string;
	}
	export interface Problem {
	    title: string;
	    advice?: string;
	    settings?: boolean;
	    titleKey?: string;
	    adviceKey?: string;
	    params?: Record<string, any>;
	}
	export interface ErrorBlock {
	    code: string;
	    message: string;
	    retryable: boolean;
	    status?: number;
	    provider?: string;
	    fields?: Record<string, string>;
	}
	export interface View {
	    kind: string;
	    text?: string;
	    forNode?: string;
	    error?: ErrorBlock;
	    problem?: Problem;
	    incomplete?: string;
	    latest?: boolean;
	    continue?: boolean;
	    inactive?: boolean;
	    branch?: BranchView;
	    large?: LargeResult;
	    question?: QuestionView;
	    answerTo?: string;
	    handover?: HandoverView;
	    skill?: SkillView;
	    pinned?: boolean;
	    compaction?: CompactionView;
	    step?: StepView;
	    inStep?: string;
	    calls?: Record<string, string>;
	    callWords?: Record<string, errs.Words>;
	}
	export interface Attachment {
	    name: string;
	    kind: string;
	    mime: string;
	    size: number;
	    path: string;
	    text?: string;
	    truncated?: boolean;
	}
	export interface FunctionCall {
	    name: string;
	    arguments: string;
	}
	export interface ToolCall {
	    id: string;
	    type: string;
	    function: FunctionCall;
	}
	export interface EntryView {
	    type: string;
	    id: string;
	    createdAt: string;
	    role?: string;
	    content?: string;
	    tool_calls?: ToolCall[];
	    tool_call_id?: string;
	    tool_name?: string;
	    mode?: string;
	    runId?: string;
	    agentId?: string;
	    workflowId?: string;
	    includeInContext?: boolean;
	    partType?: string;
	    is_error?: boolean;
	    is_meta?: boolean;
	    compacted?: boolean;
	    tokens?: number;
	    tokenEncoding?: string;
	    duration?: number;
	    fullOutputPath?: string;
	    isCollapsed?: boolean;
	    widget?: number[];
	    approval?: Approval;
	    finishReason?: string;
	    editOf?: string;
	    usage?: Usage;
	    model?: string;
	    endpoint?: string;
	    attachments?: Attachment[];
	    event?: string;
	    data?: number[];
	    ref_msg_id?: string;
	    updatedAt?: string;
	    view: View;
	}
	
	
	
	
	
	
	
	
	
	
	
	
	
	
	
	export interface UsageReport {
	    conversations: ConversationUsage[];
	    total: UsageTotals;
	    cost?: Cost;
	}
	
	

}

export namespace convlog {
	
	export interface SearchHit {
	    conversationId: string;
	    title: string;
	    lastActiveAt: string;
	    titleMatch: boolean;
	    matches: number;
	    messageId?: string;
	    role?: string;
	    snippet?: string;
	}

}

export namespace convpage {
	
	export interface Page {
	    conversation: conversation.ConversationMeta;
	    entries: conversation.EntryView[];
	    hasMore: boolean;
	    streaming: boolean;
	    unfinished: boolean;
	    awaiting: boolean;
	    stopped?: boolean;
	    canContinue: boolean;
	    agents: Record<string, packages.AgentView>;
	    waitingFor?: events.WaitingView;
	}

}

export namespace engine {
	
	export interface CompactResult {
	    conversationId: string;
	    compactedMessages: number;
	    usedTokensBefore: number;
	    usedTokensAfter: number;
	    summaryId: string;
	    summary?: string;
	    strategy?: string;
	    summaryError?: string;
	    totalBudget: number;
	}
	export interface EntryFate {
	    id: string;
	    role: string;
	    fate: string;
	    reason: string;
	    compaction?: string;
	}
	export interface SummaryView {
	    id: string;
	    tokens: number;
	    text: string;
	    screen: string;
	}
	export interface ConversationView {
	    messages: number;
	    loaded: number;
	    compacted: number;
	    compactions: conversation.CompactionRef[];
	    summary?: SummaryView;
	    pins: contextbuilder.Pin[];
	    recalled: contextbuilder.RecallItem[];
	    full: boolean;
	    entries?: EntryFate[];
	}
	
	export interface PreviewRecord {
	    compactedIds: string[];
	    truncatedIds: string[];
	}
	export interface PreviewCompression {
	    strategy: string;
	    reason: string;
	    before: compression.Usage;
	    after: compression.Usage;
	    record: PreviewRecord;
	    summary: string;
	    data: conversation.CompactionData;
	}
	export interface PreviewMessage {
	    index: number;
	    role: string;
	    content?: string;
	    tool_calls?: conversation.ToolCall[];
	    tool_call_id?: string;
	    name?: string;
	    sourceId?: string;
	    kind: string;
	    tokens: number;
	    reason: string;
	    skills?: string[];
	}
	export interface Preview {
	    conversationId: string;
	    mode: string;
	    agentId?: string;
	    model: string;
	    messages: PreviewMessage[];
	    toolNames: string[];
	    toolTokens: number;
	    usage: events.UsageEvent;
	    build: contextbuilder.Debug;
	    compression?: PreviewCompression;
	    conversation: ConversationView;
	    notes?: string[];
	}
	
	
	

}

export namespace errs {
	
	export interface Words {
	    key: string;
	    params?: Record<string, any>;
	}

}

export namespace events {
	
	export interface ApprovalEvent {
	    conversationId: string;
	    messageId: string;
	    toolCallId: string;
	    toolName: string;
	    resultMessageId: string;
	    approval?: conversation.Approval;
	}
	export interface Error {
	    code: string;
	    message: string;
	}
	export interface ChangeEvent {
	    conversationId: string;
	    kind: string;
	    external?: boolean;
	    streaming?: boolean;
	    error?: Error;
	}
	export interface WaitingView {
	    conversationId: string;
	    title: string;
	    tool: string;
	    answering: boolean;
	}
	export interface Speaker {
	    id: string;
	    name: string;
	    title: string;
	    icon: string;
	    description: string;
	}
	export interface EntriesEvent {
	    conversationId: string;
	    conversation: conversation.ConversationMeta;
	    entries: conversation.EntryView[];
	    settled: boolean;
	    unfinished: boolean;
	    awaiting: boolean;
	    stopped?: boolean;
	    canContinue: boolean;
	    agents: Record<string, Speaker>;
	    waitingFor?: WaitingView;
	    reload?: boolean;
	}
	
	export interface MCPElicitationDoneEvent {
	    id: string;
	}
	export interface MCPElicitationEvent {
	    id: string;
	    server: string;
	    message: string;
	    requestedSchema: Record<string, any>;
	}
	export interface MCPStatusEvent {
	    server: string;
	    state?: string;
	    toolCount: number;
	    error?: string;
	}
	export interface NodeProgress {
	    id: string;
	    title?: string;
	    type: string;
	    status: string;
	}
	export interface ToolOutputEvent {
	    conversationId: string;
	    toolCallId: string;
	    toolName: string;
	    data: string;
	    skipped?: number;
	    done?: boolean;
	}
	export interface SkillsChangedEvent {
	    skills: number;
	    invalid: number;
	}
	export interface TaskEvent {
	    conversationId: string;
	    taskId: string;
	    kind: string;
	    title: string;
	    chain?: string;
	    depth?: number;
	    tool?: string;
	    continues?: boolean;
	    parentId?: string;
	    reason?: string;
	    error?: Error;
	}
	export interface ProgressEvent {
	    runId: string;
	    conversationId: string;
	    packageId: string;
	    workflowId: string;
	    activeAgentId: string;
	    phase: string;
	    currentNodeId: string;
	    effectiveAgentId?: string;
	    stepsCompleted: string[];
	    artifacts: string[];
	    complete: boolean;
	    nodes?: NodeProgress[];
	    lastError?: Error;
	    updatedAt: string;
	}
	export interface ToolEndEvent {
	    conversationId: string;
	    messageId: string;
	    toolCallId: string;
	    toolName: string;
	    ok: boolean;
	    durationMs: number;
	    resultMessageId?: string;
	    pending?: boolean;
	    interrupted?: boolean;
	    error?: Error;
	}
	export interface ToolStartEvent {
	    conversationId: string;
	    messageId: string;
	    toolCallId: string;
	    toolName: string;
	    index: number;
	}
	export interface StreamEndEvent {
	    conversationId: string;
	    messageId: string;
	    finishReason?: string;
	    usage?: conversation.Usage;
	    toolCalls: number;
	    error?: Error;
	    retrying?: boolean;
	}
	export interface StreamChunkEvent {
	    conversationId: string;
	    messageId: string;
	    delta: string;
	}
	export interface StreamStartEvent {
	    conversationId: string;
	    messageId: string;
	    mode: string;
	    agentId?: string;
	    turn: number;
	}
	export interface UsageEvent {
	    conversationId: string;
	    usedTokens: number;
	    totalBudget: number;
	    usagePercent: number;
	    remaining: number;
	    status: string;
	    reported?: conversation.UsageTotals;
	    cost?: conversation.Cost;
	}
	export interface Payloads {
	    "context:usage": UsageEvent;
	    "llm:stream-start": StreamStartEvent;
	    "llm:stream-chunk": StreamChunkEvent;
	    "llm:stream-end": StreamEndEvent;
	    "llm:stream-tool-start": ToolStartEvent;
	    "llm:stream-tool-end": ToolEndEvent;
	    "conversation:changed": ChangeEvent;
	    "conversation:entries": EntriesEvent;
	    "runs:progressUpdated": ProgressEvent;
	    "task:started": TaskEvent;
	    "task:complete": TaskEvent;
	    "task:aborted": TaskEvent;
	    "mcp:status": MCPStatusEvent;
	    "skills:changed": SkillsChangedEvent;
	    "approval:requested": ApprovalEvent;
	    "approval:resolved": ApprovalEvent;
	    "tool:output": ToolOutputEvent;
	    "mcp:elicitation": MCPElicitationEvent;
	    "mcp:elicitation-done": MCPElicitationDoneEvent;
	}
	
	
	
	
	
	
	
	
	
	
	

}

export namespace llm {
	
	export interface ConnectionResult {
	    ok: boolean;
	    code?: string;
	    message: string;
	    key?: string;
	    params?: Record<string, any>;
	    model: string;
	    baseUrl: string;
	    latencyMs: number;
	    models: string[];
	    modelsError?: string;
	}
	export interface EndpointModels {
	    name: string;
	    baseUrl: string;
	    models: string[];
	    default?: string;
	    error?: string;
	}
	export interface LocalServer {
	    name: string;
	    baseUrl: string;
	    models: string[];
	}

}

export namespace mcp {
	
	export interface Problem {
	    server?: string;
	    field?: string;
	    message: string;
	    key?: string;
	    params?: Record<string, any>;
	    in?: string;
	}
	export interface PromptArgument {
	    name: string;
	    title?: string;
	    description?: string;
	    required?: boolean;
	}
	export interface Prompt {
	    server: string;
	    name: string;
	    title?: string;
	    description?: string;
	    arguments?: PromptArgument[];
	}
	
	export interface Resource {
	    server: string;
	    uri: string;
	    name: string;
	    title?: string;
	    description?: string;
	    mimeType?: string;
	    size?: number;
	}
	export interface SignOutResult {
	    signedIn: boolean;
	    revoked: boolean;
	    notRevoked?: string;
	}

}

export namespace memory {
	
	export interface File {
	    name: string;
	    path: string;
	    exists: boolean;
	    text: string;
	    size: number;
	    truncated?: boolean;
	}

}

export namespace packages {
	
	export interface AgentView {
	    id: string;
	    name: string;
	    title: string;
	    icon: string;
	    description: string;
	}
	export interface WorkflowView {
	    id: string;
	    displayName: string;
	    description: string;
	    default: boolean;
	    nodes: number;
	}
	export interface ActiveView {
	    packageId: string;
	    name: string;
	    version: string;
	    description: string;
	    workflows: WorkflowView[];
	    agents: AgentView[];
	    problem?: string;
	}
	export interface AgentInfo {
	    id: string;
	    name: string;
	    title: string;
	    icon: string;
	}
	export interface AgentList {
	    packageId: string;
	    agents: AgentView[];
	    problem?: string;
	}
	
	export interface Problem {
	    file?: string;
	    pointer?: string;
	    message: string;
	    key?: string;
	    params?: Record<string, any>;
	}
	export interface WorkflowInfo {
	    id: string;
	    displayName: string;
	    description: string;
	}
	export interface Installed {
	    id: string;
	    name: string;
	    version: string;
	    description: string;
	    // Go type: time
	    installedAt: any;
	    path: string;
	    workflows: WorkflowInfo[];
	    agents: AgentInfo[];
	    warnings?: Problem[];
	}
	export interface ImportView {
	    ok: boolean;
	    package?: Installed;
	    problems: Problem[];
	    warnings: Problem[];
	    exists?: Installed;
	    file: string;
	}
	
	export interface ListView {
	    packages: Installed[];
	    activePackageId: string;
	    demoError?: string;
	    demoInstalled: boolean;
	    demoName: string;
	}
	
	

}

export namespace project {
	
	export interface Info {
	    id: string;
	    name: string;
	    root: string;
	    dataDir: string;
	    activePackageId: string;
	    notice?: string;
	}
	export interface RecentProject {
	    root: string;
	    id: string;
	    name: string;
	    lastOpenedAt: string;
	    exists: boolean;
	}

}

export namespace projectmcp {
	
	export interface ComposedPrompt {
	    text: string;
	    attachments: attach.Input[];
	    description?: string;
	    links?: string[];
	}
	export interface ComposerOffer {
	    prompts: mcp.Prompt[];
	    resources: mcp.Resource[];
	    problems?: string[];
	}
	export interface ImportResult {
	    added: string[];
	    replaced: string[];
	    problems: mcp.Problem[];
	}
	export interface ServerSpec {
	    name: string;
	    command?: string;
	    args?: string[];
	    env?: Record<string, string>;
	    envFile?: string;
	    cwd?: string;
	    url?: string;
	    headers?: Record<string, string>;
	    disabled?: boolean;
	    type?: string;
	    // Go type: oauth
	    oauth?: any;
	}
	export interface ToolView {
	    name: string;
	    wireName: string;
	    title?: string;
	    description: string;
	    inputSchema: Record<string, unknown>;
	}
	export interface ServerView {
	    name: string;
	    source: string;
	    file?: string;
	    transport: string;
	    state: string;
	    summary: string;
	    command: string;
	    toolCount: number;
	    tools: ToolView[];
	    error?: string;
	    stderrTail?: string;
	    errorKey?: string;
	    errorParams?: Record<string, any>;
	    logPath?: string;
	    pid?: number;
	    failures?: number;
	    retryAt?: string;
	    gaveUp?: boolean;
	    serverName?: string;
	    serverVersion?: string;
	    approvalChanged?: boolean;
	    offered: boolean;
	    withheld?: string;
	    withheldWords?: errs.Words;
	    warnings?: string[];
	    config: ServerSpec;
	}
	export interface Parsed {
	    servers: ServerView[];
	    replaces: string[];
	    problems: mcp.Problem[];
	}
	
	
	export interface Switches {
	    enabled: boolean;
	    startOnOpen: boolean;
	    callTimeoutSeconds: number;
	}
	
	export interface View {
	    enabled: boolean;
	    allowedServers: string[];
	    startOnOpen: boolean;
	    callTimeoutSeconds: number;
	    servers: ServerView[];
	    problems: mcp.Problem[];
	    project: string;
	    projectFile?: string;
	    settingsPath: string;
	}

}

export namespace projectskills {
	
	export interface ActiveView {
	    name: string;
	    source: string;
	    path: string;
	    by?: string;
	    description?: string;
	    missing?: boolean;
	    messageId?: string;
	}
	export interface ChangeView {
	    conversationId: string;
	    skill: string;
	    status: string;
	    active: ActiveView[];
	}
	export interface ListView {
	    skills: skills.ListItem[];
	    locations: skills.Location[];
	}

}

export namespace settings {
	
	export interface Approvals {
	    mode?: string;
	    allow?: string[];
	    ask?: string[];
	    deny?: string[];
	}
	export interface Checkpoints {
	    maxDays?: number;
	    maxBytes?: number;
	}
	export interface Context {
	    maxMessages: number;
	    maxChars: number;
	    tokenBudget: number;
	    reserveForResponse: number;
	    triggerThreshold: number;
	    targetAfterCompression: number;
	    compressionStrategy: string;
	    includeToolResultsInContext: boolean;
	    includeCollapsedUiEventsInContext: boolean;
	    summaryShare: number;
	    recallShare: number;
	}
	export interface Endpoint {
	    name: string;
	    baseUrl: string;
	    apiKey?: string;
	    models?: string[];
	}
	export interface Engine {
	    maxTurns: number;
	    maxToolCallsPerMessage: number;
	    maxInterruptChainDepth: number;
	    maxConversationsPerMessage: number;
	    maxModelCallsPerMessage: number;
	}
	export interface FSTools {
	    enabled: boolean;
	    maxReadBytes: number;
	    maxWriteBytes: number;
	}
	export interface Price {
	    input: number;
	    cachedInput?: number;
	    output: number;
	}
	export interface LLM {
	    baseUrl: string;
	    model: string;
	    apiKey: string;
	    timeoutSeconds: number;
	    summaryModel: string;
	    connectTimeoutSeconds: number;
	    firstTokenTimeoutSeconds: number;
	    idleTimeoutSeconds: number;
	    maxRetries: number;
	    embeddingsModel: string;
	    embeddingsBaseUrl: string;
	    requestShape?: string;
	    reasoningEffort?: string;
	    prices?: Record<string, Price>;
	    currency?: string;
	    endpoints?: Endpoint[];
	}
	export interface MCPTools {
	    enabled: boolean;
	    allowedServers: string[];
	    startOnOpen: boolean;
	    callTimeoutSeconds: number;
	    maxToolsPerServer: number;
	    maxToolTokensPerServer: number;
	}
	export interface Override {
	    field: string;
	    variable: string;
	}
	
	export interface Problem {
	    field: string;
	    message: string;
	    key?: string;
	    params?: Record<string, any>;
	}
	export interface ShellTools {
	    enabled: boolean;
	    inChat: boolean;
	    timeoutSeconds: number;
	    allowNetwork: boolean;
	}
	export interface Tools {
	    fs: FSTools;
	    mcp: MCPTools;
	    shell: ShellTools;
	}
	export interface Settings {
	    llm: LLM;
	    context: Context;
	    tools: Tools;
	    engine: Engine;
	    theme: string;
	    approvals?: Approvals;
	    checkpoints?: Checkpoints;
	}
	
	
	export interface View {
	    settings: Settings;
	    overrides: Override[];
	    llmConfigured: boolean;
	    hasApiKey: boolean;
	    path: string;
	    warnings: Problem[];
	}

}

export namespace skills {
	
	export interface Problem {
	    file: string;
	    severity: string;
	    message: string;
	}
	export interface ListItem {
	    name: string;
	    description: string;
	    source: string;
	    path: string;
	    problems: Problem[];
	    status: string;
	    shadowedBy?: string;
	    userOnly?: boolean;
	    modelOnly?: boolean;
	    allowedTools?: string[];
	    files: number;
	}
	export interface Location {
	    source: string;
	    dir: string;
	    root?: string;
	}

}

export namespace tools {
	
	export interface FileView {
	    path: string;
	    content: string;
	    size: number;
	    truncated: boolean;
	    binary: boolean;
	    modifiedAt: string;
	}
	export interface ToolResultView {
	    conversationId: string;
	    messageId: string;
	    toolCallId: string;
	    toolName: string;
	    content: string;
	    size: number;
	    truncated: boolean;
	}
	export interface WidgetField {
	    name: string;
	    label: string;
	    type: string;
	    required: boolean;
	    options?: WidgetOption[];
	}
	export interface WidgetOption {
	    value: string;
	    label: string;
	}
	export interface Widget {
	    widgetId: string;
	    type: string;
	    prompt: string;
	    options?: WidgetOption[];
	    fields?: WidgetField[];
	    toolCallId?: string;
	    createdAt: string;
	}
	export interface WidgetAnswer {
	    confirmed?: boolean;
	    selected?: string;
	    values?: Record<string, any>;
	}
	

}

export namespace workflow {
	
	export interface ExecLogLine {
	    ts: string;
	    type: string;
	    tool?: string;
	    toolCallId?: string;
	    args?: string;
	    ok?: boolean;
	    code?: string;
	    durationMs?: number;
	    raw: string;
	    text: string;
	    words?: errs.Words;
	}
	export interface Run {
	    runId: string;
	    packageId: string;
	    workflowId: string;
	    activeAgentId: string;
	    conversationId: string;
	    phase: string;
	    currentNodeId: string;
	    stepsCompleted: string[];
	    artifacts: string[];
	    lastError?: events.Error;
	    createdAt: string;
	    updatedAt: string;
	}
	export interface RunLogView {
	    runId: string;
	    lines: ExecLogLine[];
	    truncated: boolean;
	}
	export interface RunStatus {
	    runId: string;
	    conversationId: string;
	    packageId: string;
	    workflowId: string;
	    activeAgentId: string;
	    phase: string;
	    currentNodeId: string;
	    effectiveAgentId?: string;
	    stepsCompleted: string[];
	    artifacts: string[];
	    complete: boolean;
	    nodes?: events.NodeProgress[];
	    lastError?: events.Error;
	    updatedAt: string;
	    pendingWidget?: tools.Widget;
	    active: boolean;
	}

}

