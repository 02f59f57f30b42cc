-- A receipt's seq counts within its runner's chain (keyId), not across the table: a second runner on the
-- same PostgreSQL database starts its own chain at 0.
DROP INDEX "Receipt_seq_key";

-- CreateIndex
CREATE UNIQUE INDEX "Receipt_keyId_seq_key" ON "Receipt"("keyId", "seq");
