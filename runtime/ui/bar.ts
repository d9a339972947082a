/** A utilization figure as a bar with its percentage, drawn by templates/ui/utilization.mustache. */
export interface Bar { value: number; text: string }

/** `12.5%`, or `25%` when whole. */
export const percentText = (value: number) => `${value.toFixed(value % 1 ? 1 : 0)}%`;

export function barView(value: number): Bar {
  return { value, text: percentText(value) };
}
