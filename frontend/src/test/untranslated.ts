// Finds words written straight into JSX: text between tags, and string
// literals given to attributes or put in braces, that do not go through the
// translation function. Parsed with the TypeScript compiler, so a word is
// found wherever the markup puts it (a conditional, a template, a `??`).
import ts from 'typescript'

export interface Literal {
  file: string
  line: number
  text: string
  where: string
}

/** Attributes whose strings are names for the program, not words for the reader. */
const codeAttributes = new Set([
  'className', 'id', 'key', 'type', 'name', 'role', 'href', 'htmlFor', 'value', 'defaultValue', 'autoComplete', 'spellCheck',
  'list', 'path', 'inputMode', 'rel', 'target', 'lang', 'dir', 'src', 'method', 'form', 'tone', 'kind', 'variant', 'size',
  'mode', 'status', 'state', 'tab', 'testId', 'field', 'accept', 'pattern', 'autoCapitalize', 'wrap', 'enterKeyHint',
  'aria-live', 'aria-haspopup', 'aria-controls', 'aria-labelledby', 'aria-describedby', 'aria-current', 'aria-orientation',
  'aria-autocomplete', 'aria-activedescendant', 'aria-sort', 'aria-relevant', 'aria-owns', 'aria-errormessage', 'viewBox',
  'd', 'fill', 'stroke', 'xmlns', 'strokeWidth', 'strokeLinecap', 'strokeLinejoin', 'fillRule', 'clipRule', 'transform',
  'points', 'x', 'y', 'i18nKey', 'focusable', 'stopColor', 'offset', 'cx', 'cy', 'r', 'width', 'height', 'x1', 'x2', 'y1', 'y2', 'language', 'icon', 'side', 'align', 'unit', 'scope',
])

/** The aria attributes that are read out; the others hold states and ids. */
const wordAria = new Set(['aria-label', 'aria-description', 'aria-valuetext', 'aria-roledescription', 'aria-placeholder'])

/** Words that read the same in every language: names of things and examples to type. */
export const sameInEveryLanguage = new Set<string>([
  'CrewAgent',
  'HTTP',
  'v', // before a version number
  'MCP',
  '.md',
  '.json',
  'gpt-4o-mini',
  'http://127.0.0.1:11434/v1',
  'http://127.0.0.1:8000/v1',
  'qwen3:8b',
  'lab', // an endpoint's name
  'USD',
  'my-project',
  '/home/me/projects',
  '/home/me/projects/my-project',
  '/full/path/to/package.bmad',
])

const hasWord = (s: string) => /\p{L}/u.test(s)

/** The literal text an expression puts on screen (its string parts). */
function literalParts(e: ts.Expression): string[] {
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e.text]
  if (ts.isTemplateExpression(e)) return [e.head.text, ...e.templateSpans.map((s) => s.literal.text)]
  if (ts.isParenthesizedExpression(e)) return literalParts(e.expression)
  if (ts.isConditionalExpression(e)) return [...literalParts(e.whenTrue), ...literalParts(e.whenFalse)]
  if (ts.isBinaryExpression(e)) {
    const k = e.operatorToken.kind
    if (k === ts.SyntaxKind.QuestionQuestionToken || k === ts.SyntaxKind.BarBarToken || k === ts.SyntaxKind.PlusToken) return [...literalParts(e.left), ...literalParts(e.right)]
    if (k === ts.SyntaxKind.AmpersandAmpersandToken) return literalParts(e.right)
  }
  return []
}

/** The untranslated words of one .tsx source. */
export function findLiterals(file: string, source: string): Literal[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX)
  const out: Literal[] = []
  const add = (node: ts.Node, text: string, where: string) => {
    const t = text.replace(/\s+/g, ' ').trim()
    if (!hasWord(t) || sameInEveryLanguage.has(t)) return
    out.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: t, where })
  }
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) add(node, node.text, 'text')
    else if (ts.isJsxExpression(node) && node.expression && !ts.isJsxAttribute(node.parent)) {
      for (const p of literalParts(node.expression)) add(node, p, 'text')
    } else if (ts.isJsxAttribute(node) && node.initializer) {
      const name = node.name.getText(sf)
      const isCode = codeAttributes.has(name) || name.startsWith('data-') || /^on[A-Z]/.test(name) || (name.startsWith('aria-') && !wordAria.has(name))
      if (!isCode) {
        const init = node.initializer
        const parts = ts.isStringLiteral(init) ? [init.text] : ts.isJsxExpression(init) && init.expression ? literalParts(init.expression) : []
        for (const p of parts) add(node, p, name)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}
