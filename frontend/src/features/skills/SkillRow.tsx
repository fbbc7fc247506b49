import { useState } from 'react'
import type { SkillView } from '../../bridge'
import { Markdown } from '../../components/Markdown'
import './skills.css'
import { Trans, useTranslation } from '../../i18n'

/** A skill's instructions in the conversation: not a chat bubble but one
 * compact line, "Skill activated: name", that expands to the instructions
 * the model received. A skill that no longer applies says so. */
export function SkillRow({ id, skill }: { id: string; skill: SkillView }) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const ended = skill.state === 'ended'
  const who = skill.by === 'model' ? t('skillRow.byModel') : skill.by === 'user' ? t('skillRow.byYou') : ''
  const meta = [skill.source, who, ended ? t('skillRow.ended') : ''].filter(Boolean).join(' · ')
  return (
    <div className={`skill-row ${ended ? 'is-ended' : 'is-active'}`} data-testid="msg-skill" data-skill={skill.name} data-state={skill.state} data-id={id}>
      <button type="button" className="skill-row-head" aria-expanded={open} onClick={() => setOpen((o) => !o)} title={open ? t('skillRow.hide') : t('skillRow.show')} data-testid="skill-row-toggle">
        <span className="skill-row-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className="skill-row-icon" aria-hidden="true">
          ✦
        </span>
        <span className="skill-row-title">
          <Trans t={t} i18nKey="skillRow.activated" values={{ name: skill.name }} components={{ b: <strong /> }} />
        </span>
        {meta && <span className="skill-row-meta">{meta}</span>}
      </button>
      {open && (
        <div className="skill-row-body" data-testid="skill-row-body">
          {skill.body ? <Markdown text={skill.body} /> : <p className="hint">{t('skillRow.noBody')}</p>}
        </div>
      )}
    </div>
  )
}
