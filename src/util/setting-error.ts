/**
 * A bad or refused setting (flag or TAPEHOUSE_* variable): the CLI ends with exit code 2 (usage).
 * Lives in util so that parts below the CLI (the warehouse target) can refuse a setting too.
 */
export class SettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingError';
  }
}
