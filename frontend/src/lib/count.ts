/** "1 message", "2 messages", "1,200 messages": a number with its noun in
 * the right number. many defaults to one + "s". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
}
