import { useRef, useState, type KeyboardEvent } from 'react'
import { CompactionStatus } from '../context/CompactionStatus'
import { ContextMeter } from '../context/ContextMeter'
import { ComposerSkills, useSkillCommand } from '../skills/ComposerSkills'
import { ApprovalModeSelect } from './ApprovalModeSelect'
import { AttachmentChips, useAttachments } from './Attachments'
import { ModelChip } from './ModelChip'
import { isCompactPrefix, parseCompactCommand, useCompactCommand } from './compactCommand'
import { useStore, useStores } from '../../stores'
import { useTranslation } from '../../i18n'

/** The message input: Enter sends, Shift+Enter starts a new line; the Send
 * button becomes Stop while a reply (or a run turn) is generated. In Run
 * mode without a run it is Start run, and the text (optional) is the run's
 * first message; with a run, messages go to the run — also after it has
 * completed. The context meter sits beside it. */
export function Composer({ onOpenInspector, disabledReason }: { onOpenInspector: () => void; disabledReason: string | null }) {
  const { t } = useTranslation()
  const { chat, runs, context } = useStores()
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
      <AttachmentChips files={attachments.files} error={attachments.error} onRemove={attachments.remove} onDismiss={attachments.dismissError} />
      <div className="composer-row">
        <textarea
          ref={ref}
          key={conversationId ?? ''}
          className="composer-input"
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          placeholder={placeholder}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
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
