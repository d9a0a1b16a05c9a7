<?php

namespace App\Http\Controllers;

use App\Models\Challenge;
use App\Models\User;
use App\Stand\Inertia;
use Illuminate\Http\RedirectResponse;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Auth;
use Symfony\Component\HttpFoundation\Response;
use Toolmark\Laravel\Facades\Toolmark;

/** The demo's pages (the Challenges domain) and its sign-in. */
final class DemoController
{
    /** Demo sign-in: /login/{name} signs in as that user (created on first use) with a fresh conversation. */
    public function login(Request $request, string $name): RedirectResponse
    {
        abort_unless(preg_match('/^[a-z]{1,16}$/', $name) === 1, 404);
        $user = User::query()->firstOrCreate(['name' => $name], ['email' => "{$name}@example.test", 'password' => '']);
        Auth::login($user);
        $request->session()->regenerate();
        Toolmark::startConversation($user, $request);

        return redirect('/challenges');
    }

    public function home(): RedirectResponse
    {
        return redirect('/challenges');
    }

    public function index(Request $request): Response
    {
        return Inertia::render('Challenges/Index', [
            'challenges' => fn () => Challenge::query()->orderBy('id')->get(['id', 'title', 'goal']),
            'stats' => fn () => ['count' => Challenge::query()->count(), 'at' => now()->toIso8601String()],
            'filter' => (string) $request->query('q', ''),
        ]);
    }

    public function create(): Response
    {
        return Inertia::render('Challenges/Create');
    }

    public function show(Challenge $challenge): Response
    {
        return Inertia::render('Challenges/Show', ['challenge' => $challenge->only(['id', 'title', 'goal'])]);
    }

    public function store(Request $request): RedirectResponse
    {
        $data = $request->validate(['title' => ['required', 'string', 'max:100', 'unique:challenges,title'], 'goal' => ['nullable', 'string', 'max:200']]);
        Challenge::query()->create(['title' => $data['title'], 'goal' => $data['goal'] ?? '']);

        return redirect('/challenges');
    }

    public function destroy(Challenge $challenge): RedirectResponse
    {
        $challenge->delete();

        return redirect('/challenges');
    }

    public function settings(): Response
    {
        return Inertia::render('Settings');
    }

    /**
     * The page `router.push` shows without a request. It has its own URL, rendered here too: a
     * reload or a poll of that URL, or a full reload, must get the same component back.
     */
    public function drafts(): Response
    {
        return Inertia::render('Drafts');
    }

    /** One URL, two components: a POST that redirects back to /wizard shows the next step. */
    public function wizard(Request $request): Response
    {
        return Inertia::render(cache()->get("wizard:{$request->user()->getKey()}") ? 'Wizard/Done' : 'Wizard/Start');
    }

    public function finishWizard(Request $request): RedirectResponse
    {
        // Kept out of the session: the chat's polling requests would write an older session back.
        cache()->put("wizard:{$request->user()->getKey()}", true, 3600);

        return redirect('/wizard');
    }
}
