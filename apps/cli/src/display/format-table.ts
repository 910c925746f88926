import stringWidth from 'string-width';

/**
 * Lays out rows as aligned text columns separated by two spaces (width measured with string-width, so colours
 * and wide characters line up). The last column is not padded.
 */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, stringWidth(cell));
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, index) =>
          index === row.length - 1 ? cell : cell + ' '.repeat((widths[index] ?? 0) - stringWidth(cell)),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
