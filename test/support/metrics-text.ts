/** The value of one series in Prometheus text (`name{labels}` as the line starts), or NaN when absent. */
export function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? NaN : Number(line.slice(series.length + 1))
}
