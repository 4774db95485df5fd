/**
 * The loss curve: training loss and held-out loss against step, drawn by uPlot (a small canvas
 * chart library), each named in a legend, with the last of each, steps per second and the time
 * left written beside it. Its own chunk, imported only once there are points to draw, so it stays
 * out of the first load.
 */
import { Component, useEffect, useRef, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { EvalPoint, MetricPoint, RunInfo } from '../../shared/training-api';
import { formatDuration, formatLoss, formatSpeed, runStats } from './run-stats';

const HEIGHT = 180;

/** Both series on one x axis: every step either has, the other's value null there (a gap). */
export function toData(
  points: readonly MetricPoint[],
  evals: readonly EvalPoint[],
): uPlot.AlignedData {
  const train = new Map(points.map((p) => [p.step, p.loss]));
  const held = new Map(evals.map((p) => [p.step, p.loss]));
  const steps = [...new Set([...train.keys(), ...held.keys()])].sort((a, b) => a - b);
  return [steps, steps.map((s) => train.get(s) ?? null), steps.map((s) => held.get(s) ?? null)];
}

const TRAIN_COLOR = '#2563eb';
const EVAL_COLOR = '#c2410c';

export interface LossChartProps {
  points: readonly MetricPoint[];
  evals: readonly EvalPoint[];
  /** The chart's accessible name (it mentions the loss and its last value). */
  label: string;
}

function Chart({ points, evals, label }: LossChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(200, Math.floor(el.clientWidth || 320));
    const chart = new uPlot(
      {
        width: width(),
        height: HEIGHT,
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        scales: { x: { time: false } },
        series: [
          { label: 'step' },
          { label: 'training loss', stroke: TRAIN_COLOR, width: 2, points: { show: false } },
          {
            label: 'held-out loss',
            stroke: EVAL_COLOR,
            width: 2,
            dash: [6, 4],
            spanGaps: true,
            points: { show: true, size: 6 },
          },
        ],
        axes: [
          { label: 'step', size: 36 },
          { label: 'loss', size: 52 },
        ],
      },
      [[], [], []], // filled by the effect below, which runs right after this one
      el,
    );
    plot.current = chart;
    const resize =
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver(() => chart.setSize({ width: width(), height: HEIGHT }));
    resize?.observe(el);
    return () => {
      resize?.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(toData(points, evals));
  }, [points, evals]);

  return (
    <figure className="loss-chart" role="img" aria-label={label}>
      <div ref={box} className="loss-chart-plot" />
      <figcaption className="loss-legend" aria-hidden="true">
        <span style={{ borderColor: TRAIN_COLOR }}>training loss</span>
        {evals.length > 0 && (
          <span className="loss-legend-eval" style={{ borderColor: EVAL_COLOR }}>
            held-out loss
          </span>
        )}
      </figcaption>
    </figure>
  );
}

/** A chart that cannot be drawn (no canvas) costs the chart only; the figures stay beside it. */
class ChartBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? (
      <p className="training-hint">The loss chart could not be drawn in this browser.</p>
    ) : (
      this.props.children
    );
  }
}

export interface LossCurveProps {
  points: readonly MetricPoint[];
  /** Held-out loss points (none when the trainer holds nothing out). */
  evals?: readonly EvalPoint[];
  run: RunInfo | null;
  /** The run still goes: the time left is shown. */
  busy: boolean;
}

export default function LossCurve({ points, evals = [], run, busy }: LossCurveProps) {
  const stats = runStats(points, run);
  const loss = stats.lastLoss !== null ? formatLoss(stats.lastLoss) : '–';
  const at = stats.lastStep !== null ? ` at step ${stats.lastStep}` : '';
  const lastEval = evals.at(-1);
  const heldOut = lastEval ? `${formatLoss(lastEval.loss)} at step ${lastEval.step}` : null;
  return (
    <div className="training-curve">
      <ChartBoundary>
        <Chart
          points={points}
          evals={evals}
          label={
            `Training loss by step: ${points.length} points, last loss ${loss}${at}` +
            (heldOut ? `; held-out loss: ${evals.length} points, last ${heldOut}` : '')
          }
        />
      </ChartBoundary>
      <dl className="training-stats">
        <div>
          <dt>Last loss</dt>
          <dd>{loss}</dd>
        </div>
        {heldOut && (
          <div>
            <dt>Held-out loss</dt>
            <dd>{heldOut}</dd>
          </div>
        )}
        <div>
          <dt>Speed</dt>
          <dd>{stats.stepsPerSecond !== null ? formatSpeed(stats.stepsPerSecond) : '–'}</dd>
        </div>
        {busy && (
          <div>
            <dt>Time left</dt>
            <dd>{stats.secondsLeft !== null ? formatDuration(stats.secondsLeft) : '–'}</dd>
          </div>
        )}
      </dl>
    </div>
  );
}
