/** Answers that froze the markdown view before its work was bounded. */
export const pathological = {
  longCodeLine: '```js\n' + 'x'.repeat(100_000) + '\n```',
  autolinks: Array.from({ length: 20_000 }, (_, i) => `https://example.com/p/${i}`).join(' '),
  wideTable: '|' + ' a |'.repeat(5000) + '\n|' + '---|'.repeat(5000) + '\n|' + ' 1 |'.repeat(5000),
  nestedList: Array.from({ length: 2000 }, (_, i) => '  '.repeat(i) + '- item ' + i).join('\n'),
  nestedOneLine: '- '.repeat(2000) + 'deep',
  nestedQuotes: '> '.repeat(2000) + 'deep',
}

