<?php

namespace Toolmark\Laravel\Models;

use Illuminate\Database\Eloquent\Model;
use Illuminate\Database\Eloquent\Relations\BelongsTo;
use Illuminate\Database\Eloquent\Relations\HasMany;

/**
 * A chat between one user and the agent. `active_client_id` is the page load its calls go to; a
 * new page load of the same conversation replaces it.
 *
 * @property int $id
 * @property int $user_id
 * @property string|null $active_client_id
 */
class Conversation extends Model
{
    protected $table = 'conversations';

    protected $guarded = ['id', 'user_id'];

    /** The owner (the model of `toolmark.user_model`, default the `users` auth provider's). */
    public function user(): BelongsTo
    {
        return $this->belongsTo(self::userModel(), 'user_id');
    }

    /** @return HasMany<ConversationMessage> */
    public function messages(): HasMany
    {
        return $this->hasMany(ConversationMessage::class, 'conversation_id');
    }

    /** @return HasMany<PageCall> */
    public function calls(): HasMany
    {
        return $this->hasMany(PageCall::class, 'conversation_id');
    }

    /** True when the user with this id owns the conversation. */
    public function isOwnedBy(mixed $userId): bool
    {
        return $userId !== null && (int) $this->user_id === (int) $userId;
    }

    /**
     * The history the model sees, oldest first: every message's masked `agent` entry, except that
     * the user's message of the running turn is read as typed from its encrypted column.
     *
     * @return list<array<string, mixed>>
     */
    public function agentHistory(): array
    {
        return $this->messages()->orderBy('id')->get()
            ->filter(fn (ConversationMessage $m): bool => $m->agent !== null)
            ->map(fn (ConversationMessage $m): array => $m->secret_text !== null
                ? ['role' => 'user', 'text' => $m->secret_text]
                : $m->agent)
            ->values()
            ->all();
    }

    /**
     * The chat as a page shows it (share it as a prop; new lines arrive as `.toolmark.chat`): the
     * lines of the roles the chat shows with a text, oldest first, each as ConversationMessage::toChat()
     * (a tool line with its part, so the page replays each call's state).
     *
     * @return list<array{id: int, role: string, text: string, messageId?: string, part?: array<string, string>}>
     */
    public function chatLines(): array
    {
        return $this->messages()->orderBy('id')->whereIn('role', ['user', 'assistant', 'tool'])->where('text', '!=', '')->get()
            ->map(fn (ConversationMessage $m): array => $m->toChat())->values()->all();
    }

    /** @return class-string<Model> */
    public static function userModel(): string
    {
        return config('toolmark.user_model')
            ?? config('auth.providers.'.config('auth.guards.'.config('auth.defaults.guard', 'web').'.provider', 'users').'.model')
            ?? 'App\\Models\\User';
    }
}
