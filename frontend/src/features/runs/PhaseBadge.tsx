import './PhaseBadge.css'
import { useTranslation } from '../../i18n'

const phases: readonly string[] = ['idle', 'running', 'waiting-user', 'completed', 'failed']

/** A run phase (idle | running | waiting-user | completed | failed) as a
 * coloured badge; running pulses. */
export function PhaseBadge({ phase, testId = 'run-phase', small = false }: { phase: string; testId?: string; small?: boolean }) {
  const { t } = useTranslation()
  return (
    <span className={`phase-badge is-${phase}${small ? ' is-small' : ''}`} data-testid={testId} data-phase={phase} title={t('phase.title', { phase })}>
      {phases.includes(phase) ? t(`phase.${phase}`) : phase}
    </span>
  )
}
