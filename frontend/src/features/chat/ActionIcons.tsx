import type { ReactNode } from 'react'

/** The icons of the actions under a message, drawn on a 16 px grid with
 * the colour of the text around them. */
const paths: Record<string, ReactNode> = {
  copy: (
    <>
      <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
      <path d="M10.5 5.5V3.75a1.25 1.25 0 0 0-1.25-1.25h-5.5A1.25 1.25 0 0 0 2.5 3.75v5.5a1.25 1.25 0 0 0 1.25 1.25H5.5" />
    </>
  ),
  check: <path d="M3 8.5l3.25 3.25L13 5" />,
  cross: <path d="M4.5 4.5l7 7M11.5 4.5l-7 7" />,
  edit: (
    <>
      <path d="M10.75 2.75l2.5 2.5L6 12.5l-3.25.75.75-3.25z" />
      <path d="M9.25 4.25l2.5 2.5" />
    </>
  ),
  regenerate: (
    <>
      <path d="M13.25 8A5.25 5.25 0 1 1 11.7 4.3" />
      <path d="M12.25 1.75v3h-3" />
    </>
  ),
  rewind: (
    <>
      <path d="M2.75 8A5.25 5.25 0 1 0 4.3 4.3" />
      <path d="M3.75 1.75v3h3" />
      <path d="M8 5.5V8l1.75 1.25" />
    </>
  ),
  fork: (
    <>
      <circle cx="4.5" cy="3.5" r="1.5" />
      <circle cx="11.5" cy="3.5" r="1.5" />
      <circle cx="4.5" cy="12.5" r="1.5" />
      <path d="M4.5 5v6M11.5 5v.75a2.5 2.5 0 0 1-2.5 2.5H7a2.5 2.5 0 0 0-2.5 2.5" />
    </>
  ),
  pin: (
    <>
      <path d="M5.5 2.25h5M6.5 2.25V6l-2 3h7l-2-3V2.25" className="icon-fill" />
      <path d="M8 9v4.75" />
    </>
  ),
  prev: <path d="M10 3.5L5.5 8l4.5 4.5" />,
  next: <path d="M6 3.5L10.5 8 6 12.5" />,
}

export type IconName = 'copy' | 'check' | 'cross' | 'edit' | 'regenerate' | 'rewind' | 'fork' | 'pin' | 'prev' | 'next'

/** One icon, hidden from screen readers: the button around it has the name. */
export function ActionIcon({ name }: { name: IconName }) {
  return (
    <svg className="action-icon" viewBox="0 0 16 16" width="16" height="16" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false" data-icon={name}>
      {paths[name]}
    </svg>
  )
}

/** An action under a message: an icon with its name for screen readers
 * (label) and a tooltip (title, the label when there is no longer one). */
export function IconAction({
  icon,
  label,
  title,
  onClick,
  disabled,
  testId,
  className = '',
  pressed,
}: {
  icon: IconName
  label: string
  title?: string
  onClick: () => void
  disabled?: boolean
  testId: string
  className?: string
  pressed?: boolean
}) {
  return (
    <button
      type="button"
      className={`msg-icon-action ${className}`}
      aria-label={label}
      title={title ?? label}
      aria-pressed={pressed}
      disabled={disabled}
      onClick={onClick}
      data-testid={testId}
    >
      <ActionIcon name={icon} />
    </button>
  )
}
