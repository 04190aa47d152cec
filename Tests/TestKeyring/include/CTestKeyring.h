#ifndef CTESTKEYRING_H
#define CTESTKEYRING_H
// The test suites' own kernel keyring (see TestKeyring.c). Linking this target is what matters:
// its constructor runs before the tests start. The name it set is in $KEYCHAIN_KEYRING.
#endif
