import './runs.css'

const labels: Record<string, string> = {
  idle: 'idle',
  running: 'running',
  'waiting-user': 'waiting for you',
  completed: 'completed',
  failed: 'failed',
}

/** A run phase (idle | running | waiting-user | completed | failed) as a
 * coloured badge; running pulses. */
export function PhaseBadge({ phase, testId = 'run-phase' }: { phase: string; testId?: string }) {
  return (
    <span className={`phase-badge is-${phase}`} data-testid={testId} data-phase={phase} title={`Run phase: ${phase}`}>
      {labels[phase] ?? phase}
    </span>
  )
}
