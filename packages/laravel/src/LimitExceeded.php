<?php

namespace Toolmark\Laravel;

use Illuminate\Http\JsonResponse;
use RuntimeException;

/**
 * Thrown when one user is over a cap of `toolmark.limits` (`too_many_turns`,
 * `too_many_conversations`), as @toolmark/server's LimitExceeded. Laravel renders it as 429 with
 * `{error: {code, message}}`, and `Retry-After` when waiting helps. Other users are not affected:
 * every cap counts per user.
 */
final class LimitExceeded extends RuntimeException
{
    /**
     * @param string $limit the code the request is refused with (`too_many_turns`, `too_many_conversations`)
     * @param int|null $retryAfter seconds after which trying again makes sense; null: waiting does not help
     */
    public function __construct(
        public readonly string $limit,
        string $message,
        public readonly ?int $retryAfter = null,
    ) {
        parent::__construct($message);
    }

    /** The 429 answer: the error body of @toolmark/server, with `Retry-After` when set. */
    public function render(): JsonResponse
    {
        $response = response()->json(['error' => ['code' => $this->limit, 'message' => $this->getMessage()]], 429);

        return $this->retryAfter === null ? $response : $response->header('Retry-After', (string) $this->retryAfter);
    }
}
