// XLA's OOM report pasted into a log (or saved from a job): each "Buffer K:" line
// links to the instruction it names in the module's optimized dump, through
// hlo.memory {uri} (the server) or `hlo-lsp memory LOG --json` (no server).
import * as vscode from 'vscode';

interface OomMatch { name: string; computation: string; line: number }
interface OomBuffer { number: number; line?: number; label: string; shape: string; matches?: OomMatch[] }
export interface MemoryReply { source?: string; module?: string | null; buffers?: OomBuffer[] }

const OOM_REPORT = /BufferAssignment OOM Debugging|Peak buffers:/;

export class OomLinks implements vscode.DocumentLinkProvider {
  constructor(private readonly memoryOf: (uri: vscode.Uri) => Promise<MemoryReply | undefined>) {}

  async provideDocumentLinks(doc: vscode.TextDocument): Promise<vscode.DocumentLink[]> {
    if (doc.uri.scheme !== 'file' || !OOM_REPORT.test(doc.getText())) return [];
    const reply = await this.memoryOf(doc.uri);
    if (!reply || reply.source !== 'oom-log' || !reply.module) return [];
    const links: vscode.DocumentLink[] = [];
    for (const b of reply.buffers ?? []) {
      const match = b.matches?.[0];
      if (!match || !b.line || b.line > doc.lineCount) continue;
      const line = doc.lineAt(b.line - 1);
      const start = line.firstNonWhitespaceCharacterIndex;
      // `#L12` opens the file at that line.
      const target = vscode.Uri.file(reply.module).with({ fragment: `L${match.line}` });
      const link = new vscode.DocumentLink(new vscode.Range(line.lineNumber, start, line.lineNumber, line.text.length), target);
      link.tooltip = `${b.label || 'entry parameter'} ${b.shape}: ${match.computation} ${match.name}` +
        (b.matches!.length > 1 ? ` (and ${b.matches!.length - 1} more)` : '');
      links.push(link);
    }
    return links;
  }
}
