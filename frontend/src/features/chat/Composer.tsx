import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react'
import { CompactionStatus } from '../context/CompactionStatus'
import { ContextMeter } from '../context/ContextMeter'
import { ComposerSkills, pickable, useSkillCommand } from '../skills/ComposerSkills'
import { ApprovalModeSelect } from './ApprovalModeSelect'
import { AttachmentChips, maxFiles, useAttachments } from './Attachments'
import { ComposerMenu } from './ComposerMenu'
import { PromptForm } from './PromptForm'
import { atQuery, filterItems, resourceItems, slashItems, slashQuery, withoutAt, type MenuItem } from './composerCommands'
import { ModelChip } from './ModelChip'
import { isCompactPrefix, parseCompactCommand, useCompactCommand } from './compactCommand'
import type { McpComposedPrompt, McpPrompt } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { useStore, useStores } from '../../stores'
import { useTranslation } from '../../i18n'

/** The message input: Enter sends, Shift+Enter starts a new line; the Send
 * button becomes Stop while a reply (or a run turn) is generated. In Run
 * mode without a run it is Start run, and the text (optional) is the run's
 * first message; with a run, messages go to the run — also after it has
 * completed. The context meter sits beside it. */
export function Composer({ onOpenInspector, disabledReason }: { onOpenInspector: () => void; disabledReason: string | null }) {
  const { t } = useTranslation()
  const { chat, runs, context, skills, mcpComposer } = useStores()
  // Waiting for another conversation's answer counts as answering: Stop ends that work.
  const waitingFor = useStore(chat, (s) => s.waitingFor)
  const streaming = useStore(chat, (s) => s.streaming) || !!waitingFor
  const usage = useStore(chat, (s) => s.usage)
  const conversationId = useStore(chat, (s) => s.conversationId)
  const mode = useStore(chat, (s) => s.mode)
  const starting = useStore(runs, (s) => s.starting)
  const startMode = useStore(runs, (s) => mode === 'run' && s.loaded && (!s.run || s.newRun))
  const runComplete = useStore(runs, (s) => !!s.run?.complete)
  const canStart = useStore(runs, (s) => !!s.workflowId)
  const [text, setText] = useState('')
  const ref = useRef<HTMLTextAreaElement>(null)
  const picker = useRef<HTMLInputElement>(null)
  const attachments = useAttachments()
  const [dropping, setDropping] = useState(false)
  // Files go with chat and agent messages (a run takes its input as text).
  const canAttach = mode !== 'run'
  const skillCommand = useSkillCommand()
  const runCompact = useCompactCommand()
  const compacting = useStore(context, (s) => !!s.compacting)
  // A tool call of the reply waits for the user's approval (its card).
  // (an answered request stays in the log until the call's result replaces it)
  const approving = useStore(chat, (s) => s.entries.some((e) => e.approval?.state === 'waiting' && !s.resolved[e.tool_call_id ?? '']))

  // The "/" menu (every command) and the "@" menu (the MCP servers' resources).
  const offer = useStore(mcpComposer, (s) => s.offer)
  const offerLoading = useStore(mcpComposer, (s) => s.loading)
  const mcpError = useStore(mcpComposer, (s) => s.error)
  const skillsView = useStore(skills, (s) => s.view)
  const [caret, setCaret] = useState(0)
  const [dismissed, setDismissed] = useState<string | null>(null)
  const [active, setActive] = useState(0)
  const [promptFor, setPromptFor] = useState<McpPrompt | null>(null)
  const [filling, setFilling] = useState(false)
  const slash = slashQuery(text)
  const at = canAttach && slash === null ? atQuery(text, caret) : null
  const wantsOffer = slash !== null || at !== null
  useEffect(() => {
    if (wantsOffer) void mcpComposer.actions.load()
  }, [wantsOffer, mcpComposer])
  const menuItems: MenuItem[] =
    slash !== null
      ? filterItems(
          slashItems({
            skills: conversationId ? pickable(skillsView?.skills) : [],
            prompts: conversationId ? (offer?.prompts ?? []) : [],
            words: {
              compact: t('composerMenu.compact'),
              skills: t('composerMenu.skills'),
              skill: (d) => t('composerMenu.skill', { description: d }),
              promptArgs: (args) => t('composerMenu.promptArgs', { args }),
            },
          }),
          slash,
        )
      : at
        ? filterItems(resourceItems(offer?.resources ?? []), at.query)
        : []
  const menuOpen = dismissed !== text && (menuItems.length > 0 || (at !== null && at.query === ''))
  const menuEmpty = at && menuItems.length === 0 ? (offerLoading || !offer ? t('common.loading') : t('composerMenu.noResources')) : null
  const activeIndex = Math.min(active, Math.max(0, menuItems.length - 1))
  useEffect(() => setActive(0), [slash, at?.query])

  // The caret goes where setTextAt puts it as soon as the new text is in the
  // input (not a frame later, when keys typed meanwhile would be put after it).
  const caretAfterCommit = useRef<number | null>(null)
  useLayoutEffect(() => {
    const pos = caretAfterCommit.current
    const el = ref.current
    if (pos === null || !el) return
    caretAfterCommit.current = null
    el.focus()
    el.setSelectionRange(pos, pos)
  })
  const setTextAt = (next: string, pos: number) => {
    setText(next)
    setCaret(pos)
    caretAfterCommit.current = pos
  }

  const addAttachments = (list: { name: string; data: string }[]) => {
    if (list.length === 0) return
    attachments.setFiles((cur) => [...cur, ...list.map((a) => ({ ...a, size: Math.floor((a.data.length * 3) / 4) - (a.data.endsWith('==') ? 2 : a.data.endsWith('=') ? 1 : 0) }))].slice(0, maxFiles))
  }

  const applyPrompt = (p: McpComposedPrompt) => {
    const body = p.text
    setTextAt(body, body.length)
    if (canAttach) addAttachments(p.attachments ?? [])
  }

  const fillPrompt = async (prompt: McpPrompt, args: Record<string, string>) => {
    setFilling(true)
    const p = await mcpComposer.actions.prompt(prompt.server, prompt.name, args)
    setFilling(false)
    if (!p) return
    setPromptFor(null)
    applyPrompt(p)
  }

  const choose = async (item: MenuItem) => {
    switch (item.kind) {
      case 'compact':
        setTextAt('/compact ', 9)
        return
      case 'skills':
      case 'skill': {
        const handled = await skillCommand(item.kind === 'skill' ? `/skill ${item.skill}` : '/skill')
        if (handled === 'done') setText('')
        ref.current?.focus()
        return
      }
      case 'prompt':
        setText('')
        if ((item.prompt.arguments ?? []).length > 0) setPromptFor(item.prompt)
        else void fillPrompt(item.prompt, {})
        return
      case 'resource': {
        if (!at) return
        const rest = withoutAt(text, at.start, caret)
        setTextAt(rest.text, rest.caret)
        const a = await mcpComposer.actions.attach(item.resource.server, item.resource.uri)
        if (a) addAttachments([a])
        return
      }
    }
  }

  const send = async () => {
    if (streaming || starting || compacting) return
    // "/compact [focus]": compacts now, never sent.
    if (runCompact(text)) return setText('')
    // "/skill NAME", "/skill off NAME", "/skill": handled here, never sent.
    const handled = await skillCommand(text)
    if (handled) {
      if (handled === 'done') setText('')
      ref.current?.focus()
      return
    }
    if (disabledReason) return
    if (startMode) {
      if (!canStart) return
      const body = text
      setText('')
      if (!(await runs.actions.startRun(body))) setText((t) => t || body)
      ref.current?.focus()
      return
    }
    const files = canAttach ? attachments.files : []
    if (!text.trim() && files.length === 0) return
    const body = text
    setText('')
    if (files.length > 0) attachments.setFiles([])
    if (!(await chat.actions.send(body, files.map(({ name, data }) => ({ name, data }))))) {
      setText((t) => t || body)
      if (files.length > 0) attachments.setFiles((cur) => (cur.length ? cur : files))
    }
    ref.current?.focus()
  }

  const placeholder = waitingFor
    ? t('composer.waitingFor', { title: waitingFor.title })
    : approving
    ? t(streaming ? 'composer.approvalStreaming' : 'composer.approval')
    : streaming
    ? t('composer.answering')
    : startMode
      ? t('composer.firstRunMessage')
      : mode === 'run' && runComplete
        ? t('composer.runComplete')
        : mode === 'run'
          ? t('composer.runMessage')
          : t('composer.message')

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (menuOpen && !e.nativeEvent.isComposing) {
      const n = menuItems.length
      if (e.key === 'ArrowDown' && n > 0) {
        e.preventDefault()
        return setActive((activeIndex + 1) % n)
      }
      if (e.key === 'ArrowUp' && n > 0) {
        e.preventDefault()
        return setActive((activeIndex - 1 + n) % n)
      }
      if (e.key === 'Escape') {
        e.preventDefault()
        e.stopPropagation()
        return setDismissed(text)
      }
      const item = menuItems[activeIndex]
      // "/compact" typed in full is sent as it is (Enter compacts).
      const typedInFull = item?.kind === 'compact' && text.trim() === '/compact'
      // Enter sends a command typed with its arguments as it is ("/skill name");
      // Tab completes it from the menu.
      const enterChooses = at !== null || !/\s/.test(slash ?? '')
      if (item && !typedInFull && (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey && enterChooses))) {
        e.preventDefault()
        void choose(item)
        return
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      void send()
    }
  }

  return (
    <div
      className={`composer${dropping ? ' is-dropping' : ''}`}
      data-testid="composer"
      onDragOver={(e) => {
        if (!canAttach || !e.dataTransfer.types.includes('Files')) return
        e.preventDefault()
        setDropping(true)
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(e) => {
        if (!canAttach || e.dataTransfer.files.length === 0) return
        e.preventDefault()
        setDropping(false)
        void attachments.add(e.dataTransfer.files)
      }}
    >
      {disabledReason && (
        <div className="composer-note" data-testid="composer-note">
          {disabledReason}
        </div>
      )}
      <CompactionStatus typing={isCompactPrefix(text) || !!parseCompactCommand(text)} />
      <ComposerSkills conversationId={conversationId} disabled={streaming} />
      {mcpError && <ErrorBanner error={mcpError} onDismiss={mcpComposer.actions.dismissError} />}
      {promptFor && <PromptForm key={`${promptFor.server}:${promptFor.name}`} prompt={promptFor} busy={filling} onSubmit={(args) => void fillPrompt(promptFor, args)} onCancel={() => { setPromptFor(null); ref.current?.focus() }} />}
      <AttachmentChips files={attachments.files} error={attachments.error} onRemove={attachments.remove} onDismiss={attachments.dismissError} />
      <div className="composer-row">
        {menuOpen && (
          <ComposerMenu
            id="composer-menu"
            items={menuItems}
            active={activeIndex}
            label={slash !== null ? t('composerMenu.commands') : t('composerMenu.resources')}
            empty={menuEmpty}
            onChoose={(item) => void choose(item)}
            onHover={setActive}
          />
        )}
        <textarea
          ref={ref}
          key={conversationId ?? ''}
          className="composer-input"
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          placeholder={placeholder}
          value={text}
          onChange={(e) => {
            setText(e.target.value)
            setCaret(e.target.selectionStart ?? e.target.value.length)
          }}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
          onKeyDown={onKeyDown}
          role="combobox"
          aria-expanded={menuOpen && menuItems.length > 0}
          aria-controls={menuOpen && menuItems.length > 0 ? 'composer-menu' : undefined}
          aria-activedescendant={menuOpen && menuItems.length > 0 ? `composer-menu-${activeIndex}` : undefined}
          aria-autocomplete="list"
          onPaste={(e) => {
            if (!canAttach || e.clipboardData.files.length === 0) return
            // A pasted image or file is attached; pasted text stays text.
            if (!e.clipboardData.getData('text/plain')) e.preventDefault()
            void attachments.add(e.clipboardData.files)
          }}
          autoFocus
          aria-label={t('composer.label')}
          data-testid="composer-input"
        />
        <div className="composer-side">
          {canAttach && (
            <>
              <button
                type="button"
                className="btn btn-ghost composer-attach"
                onClick={() => picker.current?.click()}
                disabled={streaming}
                title={t('composer.attachTitle')}
                aria-label={t('composer.attach')}
                data-testid="composer-attach"
              >
                <span aria-hidden="true">📎</span>
              </button>
              <input
                ref={picker}
                type="file"
                multiple
                hidden
                onChange={(e) => {
                  if (e.target.files) void attachments.add(e.target.files)
                  e.target.value = ''
                }}
                data-testid="composer-attach-input"
              />
            </>
          )}
          {streaming ? (
            <button type="button" className="btn btn-danger" onClick={() => void chat.actions.stop()} title={t('composer.stopTitle')} data-testid="composer-stop">
              <span aria-hidden="true">■</span> {t('common.stop')}
            </button>
          ) : startMode ? (
            <button type="button" className="btn btn-primary" onClick={() => void send()} disabled={starting || !canStart || !!disabledReason} data-testid="composer-start-run">
              {starting ? t('composer.starting') : <><span aria-hidden="true">▶</span> {t('composer.startRun')}</>}
            </button>
          ) : (
            <button type="button" className="btn btn-primary" onClick={() => void send()} disabled={(!text.trim() && (!canAttach || attachments.files.length === 0)) || compacting || (!!disabledReason && !parseCompactCommand(text))} data-testid="composer-send">
              {t('common.send')}
            </button>
          )}
          <span className="composer-meter">
            <ContextMeter usage={compacting && usage ? { ...usage, status: 'compressing' } : usage} onOpen={onOpenInspector} />
          </span>
          <ApprovalModeSelect />
          <ModelChip disabled={streaming} />
        </div>
      </div>
    </div>
  )
}
