<?php

namespace Toolmark\Laravel\Http\Controllers;

use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;
use Illuminate\Http\Response;
use Illuminate\Support\Str;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Models\Grant;

/**
 * The signed-in user's grants (remembered approvals): `GET {toolmark.routes.grants}` lists them (`{grants}`,
 * newest first, expired ones left out), `POST` stores one (`201 {grant}`, replacing the user's grant for the
 * same tool, caller and conversation), `DELETE …/{grant}` revokes one (`204`). A bad body is
 * `400 invalid_grant`; another user's grant or conversation `404`; past 200 grants `429 too_many_grants`.
 * The same contract as `@toolmark/server`'s routes, so `serverGrants()` of `@toolmark/bridge/grants` reads both.
 */
final class GrantController
{
    /** Most grants one user keeps. */
    public const MAX_PER_USER = 200;

    /** The longest a grant may last, in ms (365 days). */
    public const MAX_MS = 365 * 86_400_000;

    private const FIELDS = ['tool', 'title', 'fingerprint', 'caller', 'conversation', 'expiresAt'];

    private const CALLERS = ['inapp', 'webmcp', 'mcp', 'tour', 'test'];

    public function index(Request $request): JsonResponse
    {
        $grants = $this->live((int) $request->user()->getAuthIdentifier())->get();

        return response()->json(['grants' => $grants->map(fn (Grant $g) => $g->toWire())->values()]);
    }

    public function store(Request $request): JsonResponse
    {
        $userId = (int) $request->user()->getAuthIdentifier();
        $body = json_decode($request->getContent(), true);
        $now = (int) floor(microtime(true) * 1000);
        $problem = $this->problem($body, $now);
        if ($problem !== null) {
            return $this->fail(400, 'invalid_grant', $problem);
        }
        $conversationId = null;
        if (isset($body['conversation'])) {
            $conversation = ctype_digit($body['conversation']) ? Conversation::query()->find((int) $body['conversation']) : null;
            if ($conversation === null || ! $conversation->isOwnedBy($userId)) {
                return $this->fail(404, 'not_found', 'No such conversation');
            }
            $conversationId = (int) $conversation->getKey();
        }
        $same = fn ($query) => $query->where('user_id', $userId)->where('tool', $body['tool'])->where('caller', $body['caller'])
            ->when($conversationId === null, fn ($q) => $q->whereNull('conversation_id'), fn ($q) => $q->where('conversation_id', $conversationId));
        if (! $same(Grant::query())->exists() && $this->live($userId)->count() >= self::MAX_PER_USER) {
            return $this->fail(429, 'too_many_grants', 'Too many grants: at most '.self::MAX_PER_USER.' per user');
        }
        $grant = new Grant([
            'id' => (string) Str::uuid(),
            'user_id' => $userId,
            'tool' => $body['tool'],
            'title' => $body['title'] ?? null,
            'fingerprint' => $body['fingerprint'],
            'caller' => $body['caller'],
            'conversation_id' => $conversationId,
            'granted_at' => $now,
            'expires_at' => $body['expiresAt'] ?? null,
        ]);
        Grant::query()->getConnection()->transaction(function () use ($same, $grant): void {
            $same(Grant::query())->delete();
            $grant->save();
        });

        return response()->json(['grant' => $grant->toWire()], 201);
    }

    public function destroy(Request $request, string $grant): Response|JsonResponse
    {
        $deleted = Grant::query()->where('id', $grant)->where('user_id', (int) $request->user()->getAuthIdentifier())->delete();

        return $deleted === 1 ? response()->noContent() : $this->fail(404, 'not_found', 'No such grant');
    }

    /** The user's grants that have not expired, newest first. */
    private function live(int $userId)
    {
        $now = (int) floor(microtime(true) * 1000);

        return Grant::query()->where('user_id', $userId)
            ->where(fn ($q) => $q->whereNull('expires_at')->orWhere('expires_at', '>', $now))
            ->orderByDesc('granted_at');
    }

    /** Why a grant body is refused, or null. */
    private function problem(mixed $b, int $now): ?string
    {
        if (! is_array($b) || array_is_list($b) && $b !== []) {
            return 'Expected a JSON object';
        }
        foreach (array_keys($b) as $key) {
            if (! in_array($key, self::FIELDS, true)) {
                return 'Unknown field "'.mb_substr((string) $key, 0, 40).'"';
            }
        }
        if (! is_string($b['tool'] ?? null) || ! preg_match('/^[A-Za-z0-9_.-]{1,128}$/', $b['tool'])) {
            return 'tool must be a tool name';
        }
        if (isset($b['title']) && (! is_string($b['title']) || mb_strlen($b['title']) > 200)) {
            return 'title must be a string of at most 200 characters';
        }
        if (! is_string($b['fingerprint'] ?? null) || ! preg_match('/^[0-9a-f]{16,64}$/', $b['fingerprint'])) {
            return 'fingerprint must be 16 to 64 lowercase hex digits';
        }
        if (! in_array($b['caller'] ?? null, self::CALLERS, true)) {
            return 'caller must be one of inapp, webmcp, mcp, tour, test';
        }
        if (isset($b['conversation']) && ! is_string($b['conversation'])) {
            return 'conversation must be a conversation id';
        }
        if (isset($b['expiresAt']) && (! is_int($b['expiresAt']) || $b['expiresAt'] <= $now || $b['expiresAt'] > $now + self::MAX_MS)) {
            return 'expiresAt must be a time in the next 365 days (epoch ms)';
        }
        if (! isset($b['conversation']) && ! isset($b['expiresAt'])) {
            return 'Give conversation or expiresAt';
        }

        return null;
    }

    private function fail(int $status, string $code, string $message): JsonResponse
    {
        return response()->json(['error' => ['code' => $code, 'message' => $message]], $status);
    }
}
