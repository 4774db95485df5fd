import type { AppActorRef } from '../machines/appMachine';
import type { WorkerResponse } from '../shared/worker-protocol';

/**
 * 'Format Input' on the loaded in-browser model: sends `dataset.generate` to the app actor and
 * collects the emitted `dataset.output` events into one promise. Aborting interrupts the worker.
 */
export function createLocalGenerator(app: AppActorRef) {
  return (prompt: string, signal: AbortSignal, onText: (text: string) => void): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      if (signal.aborted) {
        reject(new DOMException('Generation cancelled', 'AbortError'));
        return;
      }
      let text = '';
      const finish = () => {
        subscription.unsubscribe();
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        app.send({ type: 'dataset.cancel' });
        finish();
        reject(new DOMException('Generation cancelled', 'AbortError'));
      };
      const subscription = app.on('dataset.output', ({ message }: { message: WorkerResponse }) => {
        if (message.status === 'update' && message.channel === 'answer') {
          text += message.output;
          onText(text);
        } else if (message.status === 'complete') {
          finish();
          resolve(text);
        } else if (message.status === 'error') {
          finish();
          reject(new Error(message.data));
        }
      });
      signal.addEventListener('abort', onAbort);
      app.send({ type: 'dataset.generate', prompt });
    });
}
