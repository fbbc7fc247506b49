/** The CrewAgent mark (same drawing as build/appicon.png). */
export function Logo({ size = 40 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 1024 1024" aria-hidden="true" focusable="false">
      <defs>
        <linearGradient id="crewagent-logo-g" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stopColor="#6366f1" />
          <stop offset="1" stopColor="#312e81" />
        </linearGradient>
      </defs>
      <rect x="64" y="64" width="896" height="896" rx="200" fill="url(#crewagent-logo-g)" />
      <path d="M 672.7 703.5 A 250 250 0 1 1 672.7 320.5" fill="none" stroke="#fff" strokeWidth="84" strokeLinecap="round" />
      <circle cx="742" cy="512" r="52" fill="#c7d2fe" />
    </svg>
  )
}
