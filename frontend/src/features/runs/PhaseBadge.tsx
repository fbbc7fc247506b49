import './PhaseBadge.css'

const labels: Record<string, string> = {
  idle: 'idle',
  running: 'running',
  'waiting-user': 'waiting for you',
  completed: 'completed',
  failed: 'failed',
}

/** A run phase (idle | running | waiting-user | completed | failed) as a
 * coloured badge; running pulses. */
export function PhaseBadge({ phase, testId = 'run-phase', small = false }: { phase: string; testId?: string; small?: boolean }) {
  return (
    <span className={`phase-badge is-${phase}${small ? ' is-small' : ''}`} data-testid={testId} data-phase={phase} title={`Run phase: ${phase}`}>
      {labels[phase] ?? phase}
    </span>
  )
}
