// Content detection for files whose name says nothing: the first token, after blank
// lines and comments, is `HloModule` (contracts: any .txt/.pbtxt starting so).
export function looksLikeHlo(head: string): boolean {
  const text = head.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
  return /^\s*HloModule(\s|,|$)/.test(text);
}
