/**
 * uPlot for the panel's component tests: jsdom has no canvas, so the loss curve's chart is this
 * stand-in (`vi.mock('uplot', () => import('…/uplot-stub'))`). The real chart is drawn in the
 * Chromium e2e (tests/e2e/train-to-chat.e2e.test.ts).
 */
export default class UPlotStub {
  setData() {}
  setSize() {}
  destroy() {}
}
