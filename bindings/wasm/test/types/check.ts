// Compiled (never run) by `tsc -p test/types` in scripts/test: the declarations each `exports`
// condition and subpath names resolve, and a web IDE's use of them type-checks.
import init, { Engine, type EditorEvent, type Output } from 'idelink-wasm';
import { RelayLink, LINK_CLOSE_MESSAGES, linkFromHash, secretFromHash, type LinkClosed } from 'idelink-wasm/link';
import * as nodejs from 'idelink-wasm/nodejs';
import * as bundler from 'idelink-wasm/bundler';

export async function webIde(): Promise<void> {
  await init();
  const link = await RelayLink.connect({
    highWaterBytes: 1 << 20,
    config: { selectionDebounceMs: 50 },
    onEvent(out) {
      if (out.event === 'toolCall' && out.request.tool === 'openDiff') {
        link.answer(out.id, { outcome: 'diffSaved', finalText: out.request.newFileContents });
      }
    },
    onClose(closed: LinkClosed) {
      console.log(closed.message, LINK_CLOSE_MESSAGES[closed.code]);
    },
  });
  const event: EditorEvent = { type: 'documentOpened', path: `${link.welcome.workspace}/a.rs` };
  link.editorEvent(event);
  const { files } = await link.listFiles();
  const { text } = await link.readFile(files[0] ?? 'a.rs');
  const engine: Engine = link.engine;
  const next: Output | null = engine.pollOutput();
  console.log(text, next, link.paused, link.connections, secretFromHash(), linkFromHash('#'));
}

export function otherBuilds(): void {
  new nodejs.Engine({ port: 40000 }, 'token').free();
  new bundler.Engine({ port: 40000 }, 'token').free();
}
