import { memo } from 'react';
/**
 * Without WebGPU only the chat is blocked (PRODUCT.md §2: "WebGPU is not supported by this browser"); the
 * hub, Format Input and fine-tuning do not need it. The block takes the chat's place, so nothing
 * of the chat is behind it to reach with Tab.
 */
function WebGpuMissing() {
  return (
    <section className="chat-column" aria-labelledby="overlay-text">
      <div className="overlay" role="alert">
        <p id="overlay-text" className="overlay-title">
          WebGPU is not supported by this browser :(
        </p>
        <p>
          The chat runs the model on your GPU through WebGPU. Open this page in a browser that has
          it: Chrome or Edge 113+, Safari 26+, or Firefox 141+ on Windows. Elsewhere it may be
          behind a flag (<code>chrome://flags/#enable-unsafe-webgpu</code> in Chrome,{' '}
          <code>dom.webgpu.enabled</code> in Firefox).
        </p>
        <p>The Hub, Format Input (with the hosted model) and fine-tuning work without it.</p>
      </div>
    </section>
  );
}

// memo: also keeps this chunk on the shared React chunk (no extra runtime split).
export default memo(WebGpuMissing);
