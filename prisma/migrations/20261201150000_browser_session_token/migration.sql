-- A browser session remembers the API token it was signed in with: revoking that token ends it too.
ALTER TABLE "BrowserSession" ADD COLUMN "tokenId" TEXT;
