/**
 * The loss curve: loss against step, drawn by uPlot (a small canvas chart library), with the last
 * loss, steps per second and the time left written beside it. Its own chunk, imported only once
 * there are points to draw, so it stays out of the first load.
 */
import { Component, useEffect, useRef, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { MetricPoint, RunInfo } from '../../shared/training-api';
import { formatDuration, formatLoss, formatSpeed, runStats } from './run-stats';

const HEIGHT = 180;

function toData(points: readonly MetricPoint[]): uPlot.AlignedData {
  return [points.map((p) => p.step), points.map((p) => p.loss)];
}

export interface LossChartProps {
  points: readonly MetricPoint[];
  /** The chart's accessible name (it mentions the loss and its last value). */
  label: string;
}

function Chart({ points, label }: LossChartProps) {
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
          { label: 'loss', stroke: '#2563eb', width: 2, points: { show: false } },
        ],
        axes: [
          { label: 'step', size: 36 },
          { label: 'loss', size: 52 },
        ],
      },
      [[], []], // filled by the effect below, which runs right after this one
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
    plot.current?.setData(toData(points));
  }, [points]);

  return (
    <figure className="loss-chart" role="img" aria-label={label}>
      <div ref={box} className="loss-chart-plot" />
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
  run: RunInfo | null;
  /** The run still goes: the time left is shown. */
  busy: boolean;
}

export default function LossCurve({ points, run, busy }: LossCurveProps) {
  const stats = runStats(points, run);
  const loss = stats.lastLoss !== null ? formatLoss(stats.lastLoss) : '–';
  const at = stats.lastStep !== null ? ` at step ${stats.lastStep}` : '';
  return (
    <div className="training-curve">
      <ChartBoundary>
        <Chart
          points={points}
          label={`Training loss by step: ${points.length} points, last loss ${loss}${at}`}
        />
      </ChartBoundary>
      <dl className="training-stats">
        <div>
          <dt>Last loss</dt>
          <dd>{loss}</dd>
        </div>
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
