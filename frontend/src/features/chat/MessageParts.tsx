import { useEffect, useRef, useState } from 'react'
import type { BranchView } from '../../bridge'
import { copyText } from '../../lib/clipboard'
import type { Speaker } from './messageRows'
import { useTranslation } from '../../i18n'
import { ActionIcon } from './ActionIcons'

/** The Copy action of a message: an icon that turns into a tick (or a
 * cross) with the outcome in words for a moment. */
export function CopyButton({ text, testId = 'msg-copy' }: { text: string; testId?: string }) {
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
  const outcome = state === 'copied' ? t('common.copied') : state === 'failed' ? t('common.copyFailed') : ''
  return (
    <button
      type="button"
      className="msg-icon-action"
      onClick={() => void copy()}
      aria-label={outcome || t('common.copy')}
      title={t('chat.copyTitle')}
      data-testid={testId}
      data-state={state}
    >
      <ActionIcon name={state === 'copied' ? 'check' : state === 'failed' ? 'cross' : 'copy'} />
      <span className="msg-icon-outcome" aria-live="polite">
        {outcome}
      </span>
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
        className="msg-icon-action branch-step"
        aria-label={t(answer ? 'chat.version.prevAnswer' : 'chat.version.prevMessage')}
        title={t(answer ? 'chat.version.prevAnswer' : 'chat.version.prevMessage')}
        disabled={disabled || frozen || branch.index <= 1}
        onClick={() => onSwitch(branch.after, branch.index - 2)}
        data-testid="branch-prev"
      >
        <ActionIcon name="prev" />
      </button>
      <span className="branch-count">
        {branch.index}/{branch.count}
      </span>
      <button
        type="button"
        className="msg-icon-action branch-step"
        aria-label={t(answer ? 'chat.version.nextAnswer' : 'chat.version.nextMessage')}
        title={t(answer ? 'chat.version.nextAnswer' : 'chat.version.nextMessage')}
        disabled={disabled || frozen || branch.index >= branch.count}
        onClick={() => onSwitch(branch.after, branch.index)}
        data-testid="branch-next"
      >
        <ActionIcon name="next" />
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
