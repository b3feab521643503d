/**
 * Errors as a ClickHouse server reports them over HTTP: the status by exception code
 * (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp, codes looked up with errorCodeToName) and the
 * text `Code: N. DB::Exception: message. (TYPE) (version V)`.
 */

const STATUS_BY_CODE = new Map<number, number>([
  [194, 401],
  ...[192, 193, 516, 512].map((code): [number, number] => [code, 403]),
  ...[36, 427, 6, 25, 26, 38, 41, 72, 441, 675, 676, 27, 376, 15, 44, 37, 123, 8, 167, 168, 223, 62, 117, 53, 321].map(
    (code): [number, number] => [code, 400],
  ),
  ...[60, 46, 47, 50, 56, 81, 115, 152, 63, 73, 336, 78, 511].map((code): [number, number] => [code, 404]),
  [229, 413],
  [48, 501],
  [209, 503],
  [76, 503],
  [381, 411],
  [159, 408],
  [439, 503],
]);

export function httpStatusOf(code: number): number {
  return STATUS_BY_CODE.get(code) ?? 500;
}

/** The code and the text of an error of ours or of the engine, with the server's version appended. */
export function describeError(err: unknown, version: string): { code: number; message: string } {
  const { code, type } = err as { code?: unknown; type?: unknown };
  const message = (err instanceof Error ? err.message : String(err)).trim();
  const suffix = ` (version ${version})`;
  const numeric = typeof code === 'number' ? code : Number(code);
  if (Number.isInteger(numeric) && numeric > 0 && typeof type === 'string') {
    return {
      code: numeric,
      message: `Code: ${numeric}. DB::Exception: ${message.replace(/[.\s]+$/, '')}. (${type})${suffix}`,
    };
  }
  const inline = /^Code: (\d+)\./.exec(message);
  if (inline) return { code: Number(inline[1]), message: `${message}${suffix}` };
  return {
    code: 1001,
    message: `Code: 1001. DB::Exception: ${message.replace(/[.\s]+$/, '')}. (STD_EXCEPTION)${suffix}`,
  };
}
