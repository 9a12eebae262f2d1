// Backups of the hub itself (README, Backups).
import path from 'node:path';
import { type Env, secret, text } from './env.ts';

export interface BackupConfig {
  /** BACKUP_DIR: where archives are written (mode 0700); DATA_DIR/backups by default. */
  dir: string;
  /** BACKUP_PASSPHRASE(_FILE): when set, every archive is encrypted with it (scrypt + AES-256-GCM). */
  passphrase: string | null;
}

export function backup(env: Env, dataDir: string): BackupConfig {
  return {
    dir: path.resolve(text(env, 'BACKUP_DIR') ?? path.join(dataDir, 'backups')),
    passphrase: secret(env, 'BACKUP_PASSPHRASE'),
  };
}
