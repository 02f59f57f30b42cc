-- A user can be disabled (tokens refused, sockets ended) and deleted (the row is kept so runs and receipts
-- stay attributed by name).
ALTER TABLE "User" ADD COLUMN "disabledAt" TIMESTAMP(3);
ALTER TABLE "User" ADD COLUMN "deletedAt" TIMESTAMP(3);
