/**
 * Bad input from whoever started Toolwall (a flag, a file, a URL): the message names the problem and
 * is shown as is, without a stack trace. The CLI maps it to its usage exit code.
 */
export class InputError extends Error {}
