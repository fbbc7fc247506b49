import { formatBytes, formatCount, parseBytes, parseCount } from '../../lib/units'
import { Advanced, Field, UnitInput, type FormTabProps } from './form'
import { useTranslation } from '../../i18n'

/** Settings → Tools: the file tools and the limits of the tool loop. */
export function ToolsTab({ draft }: FormTabProps) {
  const { t } = useTranslation()
  const f = draft.form
  return (
    <>
      <section className="settings-section">
        <h3>{t('settings.tools.files')}</h3>
        <label className="settings-check">
          <input type="checkbox" checked={f.tools.fs.enabled} onChange={(e) => draft.edit((s) => (s.tools.fs.enabled = e.target.checked))} data-testid="set-tools.fs.enabled" />
          {t('settings.tools.filesEnabled')}
        </label>
        <div className="settings-grid">
          <Field draft={draft} path="tools.fs.maxReadBytes" label={t('settings.tools.maxRead')} help={t('settings.tools.maxReadHelp')}>
            <UnitInput draft={draft} path="tools.fs.maxReadBytes" value={f.tools.fs.maxReadBytes} set={(s, v) => (s.tools.fs.maxReadBytes = v)} format={formatBytes} parse={(v) => parseBytes(v)} />
          </Field>
          <Field draft={draft} path="tools.fs.maxWriteBytes" label={t('settings.tools.maxWrite')} help={t('settings.tools.perCall')}>
            <UnitInput draft={draft} path="tools.fs.maxWriteBytes" value={f.tools.fs.maxWriteBytes} set={(s, v) => (s.tools.fs.maxWriteBytes = v)} format={formatBytes} parse={(v) => parseBytes(v)} />
          </Field>
        </div>
      </section>

      <section className="settings-section">
        <h3>{t('settings.tools.mcp')}</h3>
        <div className="settings-grid">
          <Field draft={draft} path="tools.mcp.maxToolsPerServer" label={t('settings.tools.perServer')} help={t('settings.tools.perServerHelp')}>
            <UnitInput
              draft={draft}
              path="tools.mcp.maxToolsPerServer"
              value={f.tools.mcp.maxToolsPerServer}
              set={(s, v) => (s.tools.mcp.maxToolsPerServer = v)}
              format={formatCount}
              parse={(v) => parseCount(v, { min: 1, max: 10000, what: t('settings.what.tools') })}
              suffix={t('settings.suffix.tools')}
            />
          </Field>
          <Field draft={draft} path="tools.mcp.maxToolTokensPerServer" label={t('settings.tools.defsPerServer')} help={t('settings.tools.defsPerServerHelp')}>
            <UnitInput
              draft={draft}
              path="tools.mcp.maxToolTokensPerServer"
              value={f.tools.mcp.maxToolTokensPerServer}
              set={(s, v) => (s.tools.mcp.maxToolTokensPerServer = v)}
              format={formatCount}
              parse={(v) => parseCount(v, { min: 1, max: 10000000, what: t('settings.what.tokens') })}
              suffix={t('settings.suffix.tokens')}
            />
          </Field>
        </div>
      </section>

      <section className="settings-section">
        <h3>{t('settings.tools.approvals')}</h3>
        <div className="settings-grid">
          <Field
            draft={draft}
            path="approvals.mode"
            label={t('settings.tools.approvalMode')}
            help={t('settings.tools.approvalModeHelp')}
            wide
          >
            <select
              id="set-approvals.mode"
              className="input"
              value={f.approvals?.mode || 'ask'}
              onChange={(e) => draft.edit((s) => (s.approvals = { ...(s.approvals ?? {}), mode: e.target.value }))}
              data-testid="set-approvals.mode"
            >
              <option value="read-only">{t('settings.tools.mode.read-only')}</option>
              <option value="ask">{t('settings.tools.mode.ask')}</option>
              <option value="auto-edit">{t('settings.tools.mode.auto-edit')}</option>
              <option value="full-auto">{t('settings.tools.mode.full-auto')}</option>
            </select>
          </Field>
        </div>
      </section>

      <Advanced draft={draft} paths={['engine.']} testId="settings-advanced-loop">
        <section className="settings-section">
          <h3>{t('settings.tools.loop')}</h3>
          <div className="settings-grid">
            <Field draft={draft} path="engine.maxTurns" label={t('settings.tools.maxTurns')} help={t('settings.tools.maxTurnsHelp')}>
              <UnitInput draft={draft} path="engine.maxTurns" value={f.engine.maxTurns} set={(s, v) => (s.engine.maxTurns = v)} format={formatCount} parse={(v) => parseCount(v, { max: 1000, what: t('settings.what.calls') })} suffix={t('settings.suffix.calls')} />
            </Field>
            <Field draft={draft} path="engine.maxToolCallsPerMessage" label={t('settings.tools.maxCalls')} help={t('settings.tools.maxCallsHelp')}>
              <UnitInput
                draft={draft}
                path="engine.maxToolCallsPerMessage"
                value={f.engine.maxToolCallsPerMessage}
                set={(s, v) => (s.engine.maxToolCallsPerMessage = v)}
                format={formatCount}
                parse={(v) => parseCount(v, { max: 1000, what: t('settings.what.calls') })}
                suffix={t('settings.suffix.calls')}
              />
            </Field>
            <Field
              draft={draft}
              path="engine.maxInterruptChainDepth"
              label={t('settings.tools.chain')}
              help={t('settings.tools.chainHelp')}
            >
              <UnitInput
                draft={draft}
                path="engine.maxInterruptChainDepth"
                value={f.engine.maxInterruptChainDepth}
                set={(s, v) => (s.engine.maxInterruptChainDepth = v)}
                format={formatCount}
                parse={(v) => parseCount(v, { min: 0, max: 32, what: t('settings.what.conversations') })}
                suffix={t('settings.suffix.deep')}
              />
            </Field>
            <Field
              draft={draft}
              path="engine.maxConversationsPerMessage"
              label={t('settings.tools.convs')}
              help={t('settings.tools.convsHelp')}
            >
              <UnitInput
                draft={draft}
                path="engine.maxConversationsPerMessage"
                value={f.engine.maxConversationsPerMessage}
                set={(s, v) => (s.engine.maxConversationsPerMessage = v)}
                format={formatCount}
                parse={(v) => parseCount(v, { min: 1, max: 10000, what: t('settings.what.conversations') })}
                suffix={t('settings.suffix.conversations')}
              />
            </Field>
            <Field
              draft={draft}
              path="engine.maxModelCallsPerMessage"
              label={t('settings.tools.allCalls')}
              help={t('settings.tools.allCallsHelp')}
            >
              <UnitInput
                draft={draft}
                path="engine.maxModelCallsPerMessage"
                value={f.engine.maxModelCallsPerMessage}
                set={(s, v) => (s.engine.maxModelCallsPerMessage = v)}
                format={formatCount}
                parse={(v) => parseCount(v, { min: 1, max: 100000, what: t('settings.what.calls') })}
                suffix={t('settings.suffix.calls')}
              />
            </Field>
          </div>
        </section>
      </Advanced>
    </>
  )
}
