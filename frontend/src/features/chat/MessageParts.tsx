import { useEffect, useRef, useState } from 'react'
import type { BranchView } from '../../bridge'
import { copyText } from '../../lib/clipboard'
import type { Speaker } from './messageRows'
import { useTranslation } from '../../i18n'

/** A small button that copies text and says so for a moment. */
export function CopyButton({ text, label, testId = 'msg-copy', className = 'msg-action' }: { text: string; label?: string; testId?: string; className?: string }) {
  const { t } = useTranslation()
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])
  const copy = async () => {
    const ok = await copyText(text)
    setState(ok ? 'copied' : 'failed')
    clearTimeout(timer.current)
    timer.current = setTimeout(() => setState('idle'), 1500)
  }
  return (
    <button type="button" className={className} onClick={() => void copy()} data-testid={testId} data-state={state} aria-live="polite">
      {state === 'copied' ? t('common.copied') : state === 'failed' ? t('common.copyFailed') : (label ?? t('common.copy'))}
    </button>
  )
}

/** "‹ 2/3 ›": the versions of the conversation at a branch point. */
export function BranchSwitcher({ branch, disabled, onSwitch }: { branch: BranchView; disabled: boolean; onSwitch: (after: string, index: number) => void }) {
  const { t } = useTranslation()
  const answer = branch.reason === 'regenerate'
  const frozen = !!branch.frozen
  const title = frozen ? t('chat.version.frozen') : t(answer ? 'chat.version.answer' : 'chat.version.message', { index: branch.index, count: branch.count })
  return (
    <span className="branch-switcher" data-testid="branch-switcher" data-index={branch.index} data-count={branch.count} title={title}>
      <button
        type="button"
        className="branch-step"
        aria-label={t(answer ? 'chat.version.prevAnswer' : 'chat.version.prevMessage')}
        disabled={disabled || frozen || branch.index <= 1}
        onClick={() => onSwitch(branch.after, branch.index - 2)}
        data-testid="branch-prev"
      >
        ‹
      </button>
      <span className="branch-count">
        {branch.index}/{branch.count}
      </span>
      <button
        type="button"
        className="branch-step"
        aria-label={t(answer ? 'chat.version.nextAnswer' : 'chat.version.nextMessage')}
        disabled={disabled || frozen || branch.index >= branch.count}
        onClick={() => onSwitch(branch.after, branch.index)}
        data-testid="branch-next"
      >
        ›
      </button>
    </span>
  )
}

/** Who answered: the agent's icon and name (its id and title in the tooltip). */
export function SpeakerBadge({ speaker }: { speaker: Speaker }) {
  return (
    <div className="msg-speaker" data-testid="msg-speaker" data-agent={speaker.id} title={speaker.title ? `${speaker.title} (${speaker.id})` : speaker.id}>
      <span className="speaker-icon" aria-hidden="true">
        {speaker.icon || speaker.name.slice(0, 1).toUpperCase()}
      </span>
      <span className="speaker-name">{speaker.name}</span>
    </div>
  )
}
